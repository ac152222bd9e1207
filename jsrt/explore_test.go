package jsrt

import (
	"os"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	cases := map[string]string{
		"loop":      `for(;;){}`,
		"regex":     `/^(a+)+$/.test('a'.repeat(40)+'b')`,
		"recursion": `function f(n){return f(n+1)+1} f(0)`,
		"membomb":   `const a=[]; for(;;) a.push('x'.repeat(1000)+a.length)`,
		"throw":     `function boom(){ throw new Error('boom') } boom()`,
		"reject":    `Promise.reject(new TypeError('nope'))`,
		"bigpow":    `const t=Date.now(); const x = 3n ** 600000n; console.log('pow', Date.now()-t); const s=x.toString(); console.log('tostr', Date.now()-t, s.length)`,
		"bigmul":    `const t=Date.now(); let x = (1n<<1000000n)-1n; let y=x*x; console.log('mul', Date.now()-t)`,
		"bigparse":  `const t=Date.now(); let x = BigInt('9'.repeat(300000)); console.log('parse', Date.now()-t)`,
		"sort":      `const t=Date.now(); const a=new Array(2e6); for(let i=0;i<a.length;i++)a[i]=(i*7919)%1000003; a.sort(); console.log('sort', Date.now()-t)`,
		"repeat":    `const t=Date.now(); let s='ab'.repeat(1<<24); let i=s.indexOf('c'); let r=s.replaceAll('a','cc'); console.log('str', Date.now()-t, r.length)`,
		"json":      `const t=Date.now(); const o=[]; for(let i=0;i<3e5;i++)o.push({a:i,b:'x'+i}); const s=JSON.stringify(o); const p=JSON.parse(s); console.log('json', Date.now()-t, s.length)`,
		"lastidx":   `const t=Date.now(); const s='a'.repeat(1<<20); let n=0; for (let k=0;k<1;k++) n+=s.split('').reverse().join('').length; console.log('split', Date.now()-t)`,
		"localecmp": `const t=Date.now(); const s='a'.repeat(1<<22)+'b'; const u = s.normalize('NFD'); console.log('normalize', Date.now()-t)`,
		"typed":     `const t=Date.now(); const a=new Float64Array(4e6); for(let i=0;i<a.length;i++)a[i]=Math.sin(i); a.sort(); console.log('tsort', Date.now()-t)`,
		"regexlin":  `const t=Date.now(); const s='a'.repeat(1<<23); const m = s.match(/a*b/); console.log('rx', Date.now()-t)`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			in := launch(t, src, instanceOptions{})
			in.setBudget(uint32(60000))
			t0 := time.Now()
			in.runTurn(nil)
			t.Logf("%s: %v code=%d err=%v\nstderr=%s", name, time.Since(t0), in.exitCode(), in.ended, in.stderr.String())
		})
	}
}
