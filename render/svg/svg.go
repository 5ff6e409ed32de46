// Package svg renders an ECharts option to a static SVG without a browser,
// for the Markdown reports (which cannot run scripts). It runs the embedded
// echarts.min.js in goja, a pure-Go JavaScript engine, and uses ECharts'
// own server-side rendering (ssr: true, renderToSVGString), so the SVG
// shows the same option the HTML report draws (reference/GO-STACK.md §1.5).
//
// Output is byte-for-byte deterministic: animation is forced off and the
// ids zrender numbers per process are renumbered in order of appearance.
package svg

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/dop251/goja"

	"github.com/benchledger/benchledger/render/assets"
)

// shims gives goja the few browser globals ECharts touches while loading
// and rendering with ssr: timers (it schedules, but ssr renders
// synchronously, so no callback has to run) and window/self aliases.
const shims = `
var window = globalThis, self = globalThis;
function setTimeout() { return 0; }
function clearTimeout() {}
function setInterval() { return 0; }
function clearInterval() {}
function requestAnimationFrame() { return 0; }
function cancelAnimationFrame() {}
`

// renderJS is called once per chart. It disposes of the instance even on
// error so a long report run does not accumulate charts in the runtime.
//
// number, when given, formats the numbers of value axes (ECharts' own
// default groups thousands with commas whatever the language; goja has no
// Intl to ask).
const renderJS = `
(function (optionJSON, width, height, localise, number) {
	var chart = echarts.init(null, null, {renderer: 'svg', ssr: true, width: width, height: height});
	try {
		var option = JSON.parse(optionJSON);
		if (localise) {
			['xAxis', 'yAxis'].forEach(function (k) {
				var axes = option[k];
				if (!axes) { return; }
				(Array.isArray(axes) ? axes : [axes]).forEach(function (a) {
					if (a.type === 'value' || (a.type === undefined && k === 'yAxis')) {
						a.axisLabel = a.axisLabel || {};
						if (a.axisLabel.formatter === undefined) {
							a.axisLabel.formatter = function (v) { return number(v); };
						}
					}
				});
			});
		}
		// Animation would leave elements at their start frame and wants timers.
		option.animation = false;
		chart.setOption(option);
		return chart.renderToSVGString();
	} finally {
		chart.dispose();
	}
})
`

// Compiling the 1 MB library is most of the load cost; one program serves
// every renderer of the process.
var program = sync.OnceValues(func() (*goja.Program, error) {
	src, err := assets.ECharts()
	if err != nil {
		return nil, err
	}
	return goja.Compile("echarts.min.js", string(src), false)
})

// Renderer holds one goja runtime with ECharts loaded. The first load
// (compile and run 1 MB of JavaScript) costs about 0.2 s, a further runtime
// about 30 ms, a chart 25–40 ms; so a report run keeps one Renderer for all
// its charts. A goja runtime is not safe for concurrent use; Render
// serialises calls.
type Renderer struct {
	mu     sync.Mutex
	render func(string, int, int, bool, func(float64) string) (string, error)
}

// NewRenderer loads ECharts into a fresh runtime. It returns
// assets.ErrNoECharts (wrapped) when the binary was built without
// `make assets`.
func NewRenderer() (*Renderer, error) {
	prg, err := program()
	if err != nil {
		return nil, fmt.Errorf("svg charts: %w", err)
	}
	return newRenderer(prg, "echarts.min.js")
}

// newRenderer loads a compiled build of ECharts (name says which, in
// errors) into a fresh runtime.
func newRenderer(prg *goja.Program, name string) (*Renderer, error) {
	vm := goja.New()
	if _, err := vm.RunString(shims); err != nil {
		return nil, fmt.Errorf("svg charts: shims: %w", err)
	}
	if _, err := vm.RunProgram(prg); err != nil {
		return nil, fmt.Errorf("svg charts: loading %s: %w", name, err)
	}
	if v := vm.Get("echarts"); v == nil || goja.IsUndefined(v) {
		return nil, fmt.Errorf("svg charts: %s did not define the global echarts", name)
	}
	fn, err := vm.RunString(renderJS)
	if err != nil {
		return nil, fmt.Errorf("svg charts: %w", err)
	}
	r := &Renderer{}
	if err := vm.ExportTo(fn, &r.render); err != nil {
		return nil, fmt.Errorf("svg charts: %w", err)
	}
	return r, nil
}

// Render draws option (an ECharts option as JSON) at width×height pixels
// and returns the SVG document.
func (r *Renderer) Render(option json.RawMessage, width, height int) ([]byte, error) {
	return r.RenderNumbers(option, width, height, nil)
}

// RenderNumbers is Render with the numbers of value axes formatted by
// number (a language's grouping and decimal signs); nil keeps ECharts'.
func (r *Renderer) RenderNumbers(option json.RawMessage, width, height int, number func(float64) string) ([]byte, error) {
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("svg charts: size %d×%d: both must be positive", width, height)
	}
	if !json.Valid(option) {
		return nil, errors.New("svg charts: option is not valid JSON")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	localise := number != nil
	if !localise {
		number = func(float64) string { return "" } // never called
	}
	s, err := r.render(string(option), width, height, localise, number)
	if err != nil {
		return nil, fmt.Errorf("svg charts: ECharts: %w", err)
	}
	return Normalize([]byte(s)), nil
}

var (
	defaultMu       sync.Mutex
	defaultRenderer *Renderer
)

// Render draws option with a process-wide Renderer, created on first use
// (a failed creation is retried on the next call, so a clear error repeats).
func Render(option json.RawMessage, width, height int) ([]byte, error) {
	return RenderNumbers(option, width, height, nil)
}

// RenderNumbers is Render with value-axis numbers formatted by number.
func RenderNumbers(option json.RawMessage, width, height int, number func(float64) string) ([]byte, error) {
	defaultMu.Lock()
	r := defaultRenderer
	if r == nil {
		var err error
		if r, err = NewRenderer(); err != nil {
			defaultMu.Unlock()
			return nil, err
		}
		defaultRenderer = r
	}
	defaultMu.Unlock()
	return r.RenderNumbers(option, width, height, number)
}

// Numbers is how a chart's value-axis numbers are written: Format (nil
// keeps ECharts' own) and Key, which names that format (a language tag), so
// that a chart already drawn with the same format can be reused.
type Numbers struct {
	Key    string
	Format func(float64) string
}

// drawn holds the charts this process has drawn, by option, size and
// numbers key. A chart is a pure function of those, and drawing one in
// ECharts under goja costs tens of milliseconds: a report in HTML and
// Markdown, the site's copy of a case study and a test binary's many
// renders of one campaign each draw the same charts again.
var drawn struct {
	sync.Mutex
	svgs  map[[sha256.Size]byte][]byte
	bytes int
}

// drawnLimit bounds the memory the drawn charts hold; past it the cache
// starts again empty.
const drawnLimit = 32 << 20

// RenderWith is RenderNumbers for a named number format: equal options,
// sizes and keys give the chart drawn before (a copy of it). A format
// without a key is drawn every time.
func RenderWith(option json.RawMessage, width, height int, n Numbers) ([]byte, error) {
	if n.Format != nil && n.Key == "" {
		return RenderNumbers(option, width, height, n.Format)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%d\x00%q\x00%t\x00", width, height, n.Key, n.Format != nil)
	h.Write(option)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	drawn.Lock()
	svg, ok := drawn.svgs[key]
	drawn.Unlock()
	if ok {
		return slices.Clone(svg), nil
	}
	svg, err := RenderNumbers(option, width, height, n.Format)
	if err != nil {
		return nil, err
	}
	drawn.Lock()
	if drawn.svgs == nil || drawn.bytes+len(svg) > drawnLimit {
		drawn.svgs, drawn.bytes = map[[sha256.Size]byte][]byte{}, 0
	}
	drawn.svgs[key] = slices.Clone(svg)
	drawn.bytes += len(svg)
	drawn.Unlock()
	return svg, nil
}

// zrender names CSS classes, gradients, clip paths and patterns after a
// per-instance counter ("zr3-cls-0", "zr3-g1", ...), so the same chart
// differs between renders. Each distinct token is renumbered in order of
// first appearance; the structure of the SVG is otherwise untouched.
var zrID = regexp.MustCompile(`zr\d+-[A-Za-z]+-?\d+`)

// Normalize renumbers zrender's generated ids in an SVG document so equal
// charts give equal bytes.
func Normalize(svg []byte) []byte {
	seen := map[string]string{}
	return zrID.ReplaceAllFunc(svg, func(tok []byte) []byte {
		k := string(tok)
		if v, ok := seen[k]; ok {
			return []byte(v)
		}
		v := "zr-" + strconv.Itoa(len(seen))
		seen[k] = v
		return []byte(v)
	})
}
