package timer_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/services/timer"
)

// notes is the plugin's end of the connection: it takes each notification.
type notes chan string

func (n notes) Notify(method string, params any) error {
	b, _ := json.Marshal(params)
	n <- method + " " + string(b)
	return nil
}

// One module instance's timers: the plugin sets one through the service's
// handler, and the host notifies it when the timer is due; Close stops
// every timer still pending.
func Example() {
	fired := make(notes, 1)
	svc := timer.New(timer.Config{Peer: fired})
	defer svc.Close() // the instance ended: no timer fires after this
	set := svc.Methods()["timer/set"]
	id, err := set(context.Background(), json.RawMessage(`{"ms":10}`))
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	b, _ := json.Marshal(id)
	fmt.Println("timer/set answered", string(b))
	fmt.Println(<-fired)
	// Output:
	// timer/set answered {"timer":1}
	// timer/fired {"timer":1}
}

// The host makes one per instance of a module program through its
// ModuleServices, and closes it when the instance ends.
func Example_host() {
	opts := host.Options{ModuleServices: []host.ServiceMaker{
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return timer.New(timer.Config{Peer: env.Peer, Journal: env.Journal}), nil
		},
	}}
	fmt.Println(len(opts.ModuleServices), "module service")
	// Output:
	// 1 module service
}
