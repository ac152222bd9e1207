package jsrt

import (
	"fmt"
	"os"
	"testing"
	"time"
)

const echoSrc = `
import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
rl.on('line', async (l) => { const m = JSON.parse(l); await null; process.stdout.write(JSON.stringify({jsonrpc:'2.0', id: m.id, result: m.params}) + '\n'); });
`

func TestExploreCost(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, cod := range []bool{false, true} {
		in := start(t, echoSrc, instanceOptions{closeOnDone: cod})
		line := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"text":"hello world","n":[1,2,3]}}`
		in.send(line)
		const n = 2000
		t0 := time.Now()
		for i := 0; i < n; i++ {
			in.send(line)
		}
		echo := time.Since(t0) / n
		cpu := launch(t, `let s=0; for(let i=0;i<3e7;i++){s+=i%7} console.log(s)`, instanceOptions{closeOnDone: cod})
		t0 = time.Now()
		cpu.runTurn(nil)
		loop := time.Since(t0)
		js := launch(t, `const t=Date.now(); const o=[]; for(let i=0;i<1e5;i++)o.push({a:i,b:'x'+i}); const s=JSON.stringify(o); JSON.parse(s); const x=s.replace(/x/g,'yy'); console.log(Date.now()-t)`, instanceOptions{closeOnDone: cod})
		t0 = time.Now()
		js.runTurn(nil)
		fmt.Printf("closeOnDone=%v echo=%v cpuloop=%v json=%v %s\n", cod, echo, loop, time.Since(t0), cpu.stderr.String())
	}
}
