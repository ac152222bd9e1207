//! A one-thread executor: a module has one thread, and a turn runs every
//! task until each has finished or waits for an answer of the host, which
//! comes in a later turn.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// A task's future: it runs on the module's one thread.
pub(crate) type LocalFuture<T> = Pin<Box<dyn Future<Output = T>>>;

/// The tasks of a plugin and the queue of those that can run.
#[derive(Clone, Default)]
pub(crate) struct Exec {
    tasks: Rc<RefCell<Vec<Option<LocalFuture<()>>>>>,
    ready: Arc<Mutex<VecDeque<usize>>>,
}

/// The waker of one task puts it back on the ready queue. Wakers must be
/// Send and Sync; a module has one thread, so the lock never waits.
struct TaskWaker {
    id: usize,
    ready: Arc<Mutex<VecDeque<usize>>>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.ready.lock().unwrap_or_else(|e| e.into_inner()).push_back(self.id);
    }
}

impl Exec {
    /// Adds a task; it first runs at the next run_ready.
    pub(crate) fn spawn(&self, fut: impl Future<Output = ()> + 'static) {
        let mut tasks = self.tasks.borrow_mut();
        let fut: LocalFuture<()> = Box::pin(fut);
        let id = match tasks.iter().position(|t| t.is_none()) {
            Some(free) => {
                tasks[free] = Some(fut);
                free
            }
            None => {
                tasks.push(Some(fut));
                tasks.len() - 1
            }
        };
        self.push_ready(id);
    }

    fn push_ready(&self, id: usize) {
        self.ready.lock().unwrap_or_else(|e| e.into_inner()).push_back(id);
    }

    fn pop_ready(&self) -> Option<usize> {
        self.ready.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
    }

    /// Runs tasks until none can: each has finished or waits to be woken.
    pub(crate) fn run_ready(&self) {
        while let Some(id) = self.pop_ready() {
            // The future leaves its slot while it runs, so that it may
            // spawn tasks itself.
            let fut = self.tasks.borrow_mut().get_mut(id).and_then(|slot| slot.take());
            let mut fut = match fut {
                Some(fut) => fut,
                None => continue, // finished already: a late wake
            };
            let waker = Waker::from(Arc::new(TaskWaker { id, ready: self.ready.clone() }));
            let mut cx = Context::from_waker(&waker);
            if fut.as_mut().poll(&mut cx).is_pending() {
                self.tasks.borrow_mut()[id] = Some(fut);
            }
        }
    }

    /// How many tasks have not finished.
    pub(crate) fn pending(&self) -> usize {
        self.tasks.borrow().iter().filter(|t| t.is_some()).count()
    }
}

/// A value a later message delivers, and the waker of whoever waits for it.
pub(crate) struct Slot<T> {
    value: Option<T>,
    waker: Option<Waker>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot { value: None, waker: None }
    }
}

impl<T> Slot<T> {
    /// Delivers the value and wakes the task waiting for it.
    pub(crate) fn fill(&mut self, value: T) {
        self.value = Some(value);
        if let Some(w) = self.waker.take() {
            w.wake();
        }
    }

    /// Takes the value, or remembers who to wake.
    pub(crate) fn poll_take(&mut self, cx: &mut Context<'_>) -> Poll<T> {
        match self.value.take() {
            Some(v) => Poll::Ready(v),
            None => {
                self.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
