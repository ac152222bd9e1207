/*
 * The C side of Escouade's JS runtime: QuickJS as a WASI reactor.
 *
 * It only starts the engine, moves bytes and runs jobs; the Node surface is
 * JavaScript (runtime.js, loaded from /bundle at the first turn).
 *
 * Exports:
 *   escouade-budget(i32 ms)  the next turns' limit, for the interrupt handler
 *   escouade-turn()          read stdin, hand its lines to the runtime, run
 *                            tasks and jobs until nothing is left, return
 *   escouade-compile()       in an instance of its own, never a plugin's:
 *                            compile /bundle/runtime.js and the bundle
 *                            without running them and write their bytecode
 *                            on stdout, each as a 32-bit little-endian
 *                            length and the bytes of JS_WriteObject
 *
 * When the host mounts /bundle/runtime.qbc and /bundle/plugin.qbc (the
 * bytecode a compile wrote, which the host checked against its digest),
 * the first turn reads them with JS_ReadObject instead of parsing the
 * sources: parsing is most of a start.
 *
 * Ends of the instance, by proc_exit code (the host maps them; see jsrt's
 * Go package): 0..255 process.exit, 1000 crash (the last stderr line is
 * "escouade: crashed: <detail>"), 1001 turn past its budget, 1002 out of
 * memory.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <malloc.h>

#include "quickjs.h"

#define EXIT_CRASH 1000
#define EXIT_TURN_TOO_LONG 1001
#define EXIT_OUT_OF_MEMORY 1002

/* Linear memory is capped at 64 MB by the module and by the host; the
   engine's own limit stays below so that QuickJS, not a failed
   memory.grow in the middle of libc, is the one that says so. */
#define MEMORY_LIMIT (60u << 20)
/* The C stack is STACK_SIZE bytes (linker flag); QuickJS stops JS
   recursion a margin before its end. */
#define STACK_SIZE (1u << 20)
#define STACK_LIMIT (STACK_SIZE - (128u << 10))

static JSRuntime *rt;
static JSContext *ctx;
static JSValue hooks; /* the object runtime.js returns */
static int budget_ms = 2000;
static int64_t deadline_ns;
static int interrupted;

static char *in_buf;
static size_t in_len, in_cap;

/* Unhandled rejections seen during the turn, dropped when handled. */
#define MAX_REJECTIONS 64
static JSValue rejections[MAX_REJECTIONS * 2]; /* promise, reason */
static int n_rejections;

/* ---- memory: QuickJS's own accounting, and a record of any failure ---- */

static int alloc_failed; /* an allocation was refused: an error is OOM */

static void *a_malloc(JSMallocState *s, size_t size)
{
    if (s->malloc_size + size > s->malloc_limit) {
        alloc_failed = 1;
        return NULL;
    }
    void *p = malloc(size);
    if (!p) {
        alloc_failed = 1;
        return NULL;
    }
    s->malloc_count++;
    s->malloc_size += malloc_usable_size(p) + 8;
    return p;
}

static void a_free(JSMallocState *s, void *p)
{
    if (!p)
        return;
    s->malloc_count--;
    s->malloc_size -= malloc_usable_size(p) + 8;
    free(p);
}

static void *a_realloc(JSMallocState *s, void *p, size_t size)
{
    if (!p)
        return size ? a_malloc(s, size) : NULL;
    size_t old = malloc_usable_size(p);
    if (size == 0) {
        a_free(s, p);
        return NULL;
    }
    if (s->malloc_size + size - old > s->malloc_limit) {
        alloc_failed = 1;
        return NULL;
    }
    void *q = realloc(p, size);
    if (!q) {
        alloc_failed = 1;
        return NULL;
    }
    s->malloc_size += malloc_usable_size(q) - old;
    return q;
}

static size_t a_usable(const void *p) { return malloc_usable_size((void *)p); }

static const JSMallocFunctions allocator = {a_malloc, a_free, a_realloc, a_usable};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int on_interrupt(JSRuntime *r, void *opaque)
{
    if (now_ns() < deadline_ns)
        return 0;
    interrupted = 1;
    return 1;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void say(const char *s) { write_all(2, s, strlen(s)); }

/* ---- how the instance ends ---- */

static int is_out_of_memory(JSValueConst exc)
{
    int oom = 0;
    /* QuickJS throws null when even its out-of-memory error cannot be made */
    if (alloc_failed && JS_IsNull(exc))
        return 1;
    const char *s = JS_ToCString(ctx, exc);
    if (s) {
        oom = strcmp(s, "InternalError: out of memory") == 0;
        JS_FreeCString(ctx, s);
    } else {
        oom = 1; /* not even the message fits */
    }
    return oom;
}

/* crash prints what Node would (the error and its stack), then one line
   the host takes as the crash's detail, and ends the instance. */
static void crash(JSValueConst exc, const char *what)
{
    if (interrupted) {
        say("escouade: the turn ran past its time\n");
        _Exit(EXIT_TURN_TOO_LONG);
    }
    if (is_out_of_memory(exc)) {
        say("escouade: out of memory\n");
        _Exit(EXIT_OUT_OF_MEMORY);
    }
    const char *msg = JS_ToCString(ctx, exc);
    const char *stack = NULL;
    JSValue st = JS_UNDEFINED;
    if (JS_IsError(ctx, exc)) {
        st = JS_GetPropertyStr(ctx, exc, "stack");
        if (JS_IsString(st))
            stack = JS_ToCString(ctx, st);
    }
    say(what);
    say(msg ? msg : "(an exception that cannot be printed)");
    say("\n");
    if (stack) {
        /* at most 10 frames: a stack overflow has thousands */
        const char *p = stack;
        for (int i = 0; i < 10 && *p; i++) {
            const char *e = strchr(p, '\n');
            p = e ? e + 1 : p + strlen(p);
        }
        write_all(2, stack, (size_t)(p - stack));
        if (*p)
            say("    ...\n");
    }
    /* The detail: the message and the stack's first line. */
    say("escouade: crashed: ");
    say(what);
    say(msg ? msg : "(an exception that cannot be printed)");
    if (stack) {
        const char *p = stack;
        while (*p == ' ')
            p++;
        const char *e = strchr(p, '\n');
        if (e != p && *p) {
            say(" ");
            write_all(2, p, e ? (size_t)(e - p) : strlen(p));
        }
    }
    say("\n");
    _Exit(EXIT_CRASH);
}

static void crash_pending(const char *what)
{
    JSValue exc = JS_GetException(ctx);
    crash(exc, what);
}

/* ---- natives handed to runtime.js ---- */

static JSValue n_write(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    int fd;
    size_t len;
    if (JS_ToInt32(c, &fd, argv[0]))
        return JS_EXCEPTION;
    if (fd != 1 && fd != 2)
        return JS_ThrowRangeError(c, "bad fd");
    const char *s = JS_ToCStringLen(c, &len, argv[1]);
    if (!s)
        return JS_EXCEPTION;
    write_all(fd, s, len);
    JS_FreeCString(c, s);
    return JS_UNDEFINED;
}

/* readFile(path) → string (UTF-8 decoded), or an errno name string
   prefixed with "\0" when it cannot be read. */
static JSValue n_read_file(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    const char *path = JS_ToCString(c, argv[0]);
    if (!path)
        return JS_EXCEPTION;
    FILE *f = fopen(path, "rb");
    JS_FreeCString(c, path);
    if (!f) {
        char err[32];
        snprintf(err, sizeof err, "%c%d", 0, errno);
        return JS_NewStringLen(c, err, 1 + strlen(err + 1));
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return JS_ThrowOutOfMemory(c);
    JSValue v = JS_NewStringLen(c, buf, len);
    free(buf);
    return v;
}

/* The bytecode files the host may mount beside the sources. */
#define RUNTIME_BYTECODE "/bundle/runtime.qbc"
#define BUNDLE_BYTECODE "/bundle/plugin.qbc"

static int has_file(const char *path) { return access(path, F_OK) == 0; }

/* read_bytecode reads the file at path with JS_ReadObject: a function or
   a module, not yet run. */
static JSValue read_bytecode(JSContext *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return JS_ThrowReferenceError(c, "%s cannot be read", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = size > 0 ? malloc((size_t)size) : NULL;
    if (!buf) {
        fclose(f);
        return size > 0 ? JS_ThrowOutOfMemory(c) : JS_ThrowReferenceError(c, "%s is empty", path);
    }
    size_t n = fread(buf, 1, (size_t)size, f);
    fclose(f);
    JSValue obj = n == (size_t)size ? JS_ReadObject(c, buf, n, JS_READ_OBJ_BYTECODE)
                                    : JS_ThrowReferenceError(c, "%s cannot be read", path);
    free(buf);
    return obj;
}

static JSValue n_now(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    return JS_NewFloat64(c, (double)now_ns() / 1e6);
}

static JSValue n_random(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    size_t len;
    uint8_t *p = JS_GetArrayBuffer(c, &len, argv[0]);
    if (!p)
        return JS_EXCEPTION;
    for (size_t off = 0; off < len; off += 256) {
        size_t n = len - off < 256 ? len - off : 256;
        if (getentropy(p + off, n) != 0)
            return JS_ThrowInternalError(c, "no random bytes");
    }
    return JS_UNDEFINED;
}

static JSValue n_exit(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    int code = 0;
    JS_ToInt32(c, &code, argv[0]);
    _Exit(code & 0xff);
}

/* compile_module compiles the module source src (a JS string) as name,
   with its imports resolved, without running it. */
static JSValue compile_module(JSContext *c, JSValueConst src, const char *name)
{
    size_t len;
    const char *s = JS_ToCStringLen(c, &len, src);
    if (!s)
        return JS_EXCEPTION;
    JSValue fn = JS_Eval(c, s, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    JS_FreeCString(c, s);
    return fn;
}

/* load_module_bytecode reads the bundle's module from its bytecode and
   resolves its imports, as compiling its source does. */
static JSValue load_module_bytecode(JSContext *c)
{
    JSValue fn = read_bytecode(c, BUNDLE_BYTECODE);
    if (JS_IsException(fn))
        return fn;
    if (JS_VALUE_GET_TAG(fn) != JS_TAG_MODULE) {
        JS_FreeValue(c, fn);
        return JS_ThrowTypeError(c, "%s is not a module", BUNDLE_BYTECODE);
    }
    if (JS_ResolveModule(c, fn) < 0) {
        JS_FreeValue(c, fn);
        return JS_EXCEPTION;
    }
    return fn;
}

/* evalModule(src, url) runs the bundle: src is its source, or undefined
   when the host mounted its bytecode. */
static JSValue n_eval_module(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    const char *name = JS_ToCString(c, argv[1]);
    if (!name)
        return JS_EXCEPTION;
    JSValue fn = JS_IsUndefined(argv[0]) ? load_module_bytecode(c) : compile_module(c, argv[0], name);
    if (JS_IsException(fn)) {
        JS_FreeCString(c, name);
        return fn;
    }
    /* import.meta.url is the module's name, a file: URL under /plugin */
    JSValue meta = JS_GetImportMeta(c, JS_VALUE_GET_PTR(fn));
    JS_DefinePropertyValueStr(c, meta, "url", JS_NewString(c, name), JS_PROP_C_W_E);
    JS_FreeValue(c, meta);
    JS_FreeCString(c, name);
    return JS_EvalFunction(c, fn);
}

static JSValue n_crash(JSContext *c, JSValueConst this, int argc, JSValueConst *argv)
{
    crash(argv[0], "");
    return JS_UNDEFINED;
}

static const JSCFunctionListEntry natives[] = {
    JS_CFUNC_DEF("crash", 1, n_crash),
    JS_CFUNC_DEF("write", 2, n_write),
    JS_CFUNC_DEF("readFile", 1, n_read_file),
    JS_CFUNC_DEF("now", 0, n_now),
    JS_CFUNC_DEF("random", 1, n_random),
    JS_CFUNC_DEF("exit", 1, n_exit),
    JS_CFUNC_DEF("evalModule", 2, n_eval_module),
};

/* ---- modules: node:fs and node:readline come from runtime.js ---- */

static JSModuleDef *load_module(JSContext *c, const char *name, void *opaque)
{
    JSValue fn = JS_GetPropertyStr(c, hooks, "moduleSource");
    JSValue arg = JS_NewString(c, name);
    JSValue src = JS_Call(c, fn, hooks, 1, &arg);
    JS_FreeValue(c, fn);
    JS_FreeValue(c, arg);
    if (JS_IsException(src))
        return NULL;
    size_t len;
    const char *s = JS_ToCStringLen(c, &len, src);
    JS_FreeValue(c, src);
    if (!s)
        return NULL;
    JSValue m = JS_Eval(c, s, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    JS_FreeCString(c, s);
    if (JS_IsException(m))
        return NULL;
    JSModuleDef *def = JS_VALUE_GET_PTR(m);
    JS_FreeValue(c, m);
    return def;
}

static char *normalize_module(JSContext *c, const char *base, const char *name, void *opaque)
{
    return js_strdup(c, name);
}

/* ---- rejections ---- */

static void on_rejection(JSContext *c, JSValueConst promise, JSValueConst reason,
                         JS_BOOL is_handled, void *opaque)
{
    if (is_handled) {
        for (int i = 0; i < n_rejections; i++) {
            if (JS_VALUE_GET_PTR(rejections[2 * i]) == JS_VALUE_GET_PTR(promise)) {
                JS_FreeValue(c, rejections[2 * i]);
                JS_FreeValue(c, rejections[2 * i + 1]);
                n_rejections--;
                rejections[2 * i] = rejections[2 * n_rejections];
                rejections[2 * i + 1] = rejections[2 * n_rejections + 1];
                return;
            }
        }
        return;
    }
    if (interrupted || n_rejections == MAX_REJECTIONS)
        crash(reason, "unhandled rejection: ");
    rejections[2 * n_rejections] = JS_DupValue(c, promise);
    rejections[2 * n_rejections + 1] = JS_DupValue(c, reason);
    n_rejections++;
}

/* ---- start and turns ---- */

static void drain_jobs(void)
{
    JSContext *c;
    for (;;) {
        int r = JS_ExecutePendingJob(rt, &c);
        if (interrupted)
            crash(JS_UNDEFINED, "");
        if (r == 0)
            return;
        if (r < 0)
            crash_pending("");
    }
}

static JSValue call_hook(const char *name, int argc, JSValueConst *argv)
{
    JSValue fn = JS_GetPropertyStr(ctx, hooks, name);
    JSValue v = JS_Call(ctx, fn, hooks, argc, argv);
    JS_FreeValue(ctx, fn);
    if (JS_IsException(v))
        crash_pending("");
    return v;
}

/* new_runtime makes the runtime and its context, with every limit. */
static void new_runtime(void)
{
    rt = JS_NewRuntime2(&allocator, NULL);
    if (!rt) {
        say("escouade: out of memory\n");
        _Exit(EXIT_OUT_OF_MEMORY);
    }
    JS_SetMemoryLimit(rt, MEMORY_LIMIT);
    JS_SetMaxStackSize(rt, STACK_LIMIT);
    JS_SetInterruptHandler(rt, on_interrupt, NULL);
    JS_SetHostPromiseRejectionTracker(rt, on_rejection, NULL);
    ctx = JS_NewContext(rt);
    if (!ctx) {
        say("escouade: out of memory\n");
        _Exit(EXIT_OUT_OF_MEMORY);
    }
}

/* read_source is the text of the file at path as a JS string, as
   runtime.js's readFile gives it; it ends the instance if it cannot. */
static JSValue read_source(const char *path)
{
    JSValue src = n_read_file(ctx, JS_UNDEFINED, 1, (JSValueConst[]){JS_NewString(ctx, path)});
    if (JS_IsException(src))
        crash_pending("");
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, src);
    int ok = s && len > 0 && s[0] != 0;
    JS_FreeCString(ctx, s);
    if (!ok) {
        say("escouade: crashed: ");
        say(path);
        say(" cannot be read\n");
        _Exit(EXIT_CRASH);
    }
    return src;
}

/* compile_runtime compiles runtime.js, a script whose value is the
   function that builds the Node surface, without running it. */
static JSValue compile_runtime(void)
{
    JSValue src = read_source("/bundle/runtime.js");
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, src);
    JSValue fn = JS_Eval(ctx, s, len, "escouade:runtime",
                         JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_STRICT | JS_EVAL_FLAG_COMPILE_ONLY);
    JS_FreeCString(ctx, s);
    JS_FreeValue(ctx, src);
    return fn;
}

static void start(void)
{
    new_runtime();
    JS_SetModuleLoaderFunc(rt, normalize_module, load_module, NULL);

    JSValue code = has_file(RUNTIME_BYTECODE) ? read_bytecode(ctx, RUNTIME_BYTECODE) : compile_runtime();
    if (JS_IsException(code))
        crash_pending("");
    JSValue fn = JS_EvalFunction(ctx, code);
    if (JS_IsException(fn))
        crash_pending("");
    JSValue nat = JS_NewObject(ctx);
    JS_SetPropertyFunctionList(ctx, nat, natives, sizeof natives / sizeof natives[0]);
    JS_SetPropertyStr(ctx, nat, "bytecode", JS_NewBool(ctx, has_file(BUNDLE_BYTECODE)));
    JSValue global = JS_GetGlobalObject(ctx);
    JSValue args[2] = {nat, global};
    hooks = JS_Call(ctx, fn, JS_UNDEFINED, 2, args);
    JS_FreeValue(ctx, fn);
    JS_FreeValue(ctx, nat);
    JS_FreeValue(ctx, global);
    if (JS_IsException(hooks))
        crash_pending("");
    JS_FreeValue(ctx, call_hook("start", 0, NULL));
}

/* read_stdin appends what fd 0 has now; reads never block. */
static void read_stdin(void)
{
    for (;;) {
        if (in_cap - in_len < 65536) {
            size_t cap = in_cap ? in_cap * 2 : 131072;
            char *nb = realloc(in_buf, cap);
            if (!nb) {
                say("escouade: out of memory\n");
                _Exit(EXIT_OUT_OF_MEMORY);
            }
            in_buf = nb;
            in_cap = cap;
        }
        ssize_t n = read(0, in_buf + in_len, in_cap - in_len);
        if (n <= 0)
            return;
        in_len += (size_t)n;
    }
}

/* deliver hands the whole lines read so far to the runtime. */
static void deliver(void)
{
    char *end = NULL;
    for (size_t i = in_len; i > 0; i--) {
        if (in_buf[i - 1] == '\n') {
            end = in_buf + i;
            break;
        }
    }
    if (!end)
        return;
    size_t n = (size_t)(end - in_buf);
    JSValue text = JS_NewStringLen(ctx, in_buf, n);
    memmove(in_buf, end, in_len - n);
    in_len -= n;
    if (JS_IsException(text))
        crash_pending("");
    JS_FreeValue(ctx, call_hook("deliver", 1, (JSValueConst *)&text));
    JS_FreeValue(ctx, text);
}

__attribute__((export_name("escouade-budget"))) void escouade_budget(int ms)
{
    budget_ms = ms > 0 ? ms : 2000;
}

__attribute__((export_name("escouade-turn"))) void escouade_turn(void)
{
    deadline_ns = now_ns() + (int64_t)budget_ms * 1000000;
    alloc_failed = 0;
    if (!ctx) {
        start();
        drain_jobs();
    }
    read_stdin();
    deliver();
    drain_jobs();
    for (;;) {
        JSValue more = call_hook("step", 0, NULL);
        int again = JS_ToBool(ctx, more);
        JS_FreeValue(ctx, more);
        drain_jobs();
        if (!again)
            break;
    }
    if (n_rejections > 0)
        crash(rejections[1], "unhandled rejection: ");
}

/* ---- compiling, for the host's cache ---- */

/* compile_stub_module stands for an import while compiling: resolving
   the bundle's imports needs a module of that name, and its bytecode
   names its imports, never their code. */
static JSModuleDef *compile_stub_module(JSContext *c, const char *name, void *opaque)
{
    JSValue m = JS_Eval(c, "", 0, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    if (JS_IsException(m))
        return NULL;
    JSModuleDef *def = JS_VALUE_GET_PTR(m);
    JS_FreeValue(c, m);
    return def;
}

/* write_bytecode writes obj's bytecode on stdout after its length. */
static void write_bytecode(JSValue obj)
{
    if (JS_IsException(obj))
        crash_pending("");
    size_t len;
    uint8_t *buf = JS_WriteObject(ctx, &len, obj, JS_WRITE_OBJ_BYTECODE);
    JS_FreeValue(ctx, obj);
    if (!buf || len > 0xffffffffu)
        crash_pending("");
    uint8_t n[4] = {len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, (len >> 24) & 0xff};
    write_all(1, (const char *)n, 4);
    write_all(1, (const char *)buf, len);
    js_free(ctx, buf);
}

/* bundle_url is the bundle's import.meta.url, from /bundle/meta.json: the
   module's name, in its stack traces as in its bytecode. */
static char *bundle_url(void)
{
    JSValue text = read_source("/bundle/meta.json");
    size_t len;
    const char *s = JS_ToCStringLen(ctx, &len, text);
    JSValue meta = JS_ParseJSON(ctx, s, len, "/bundle/meta.json");
    JS_FreeCString(ctx, s);
    JS_FreeValue(ctx, text);
    if (JS_IsException(meta))
        crash_pending("");
    JSValue url = JS_GetPropertyStr(ctx, meta, "url");
    JS_FreeValue(ctx, meta);
    const char *u = JS_IsString(url) ? JS_ToCString(ctx, url) : NULL;
    JS_FreeValue(ctx, url);
    if (!u) {
        say("escouade: crashed: /bundle/meta.json has no url\n");
        _Exit(EXIT_CRASH);
    }
    char *copy = strdup(u);
    JS_FreeCString(ctx, u);
    return copy;
}

__attribute__((export_name("escouade-compile"))) void escouade_compile(void)
{
    deadline_ns = now_ns() + (int64_t)budget_ms * 1000000;
    new_runtime();
    JS_SetModuleLoaderFunc(rt, normalize_module, compile_stub_module, NULL);
    write_bytecode(compile_runtime());
    char *url = bundle_url();
    JSValue src = read_source("/bundle/plugin.mjs");
    write_bytecode(compile_module(ctx, src, url));
    JS_FreeValue(ctx, src);
    free(url);
}
