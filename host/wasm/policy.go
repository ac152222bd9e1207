package wasm

import (
	"fmt"
	"slices"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
)

// shape is how the host drives a module (docs/protocol.md#turns).
type shape int

const (
	reactor shape = iota + 1 // exports escouade-turn
	command                  // exports _start
)

// Exports the host calls.
const (
	turnExport       = "escouade-turn"
	budgetExport     = "escouade-budget"
	initializeExport = "_initialize"
	startExport      = "_start"
)

// checkModule returns the module's shape, or why it cannot run: an import
// Escouade does not provide (named as module.name), a memory that starts
// past the limit, an export of the host's with another signature, or no
// entry point.
func checkModule(cm engine.CompiledModule, have provided, memoryLimit uint64) (shape, error) {
	if err := checkImports(cm, have); err != nil {
		return 0, err
	}
	if err := checkMemory(cm, memoryLimit); err != nil {
		return 0, err
	}
	exports := cm.ExportedFunctions()
	for name, want := range map[string][]engine.ValueType{turnExport: nil, budgetExport: {engine.ValueTypeI32}, initializeExport: nil, startExport: nil} {
		if def, ok := exports[name]; ok && (!slices.Equal(def.ParamTypes(), want) || len(def.ResultTypes()) != 0) {
			return 0, fmt.Errorf("its module exports %s as %s; Escouade calls it as %s", name, signature(def.ParamTypes(), def.ResultTypes()), signature(want, nil))
		}
	}
	switch {
	case exports[turnExport] != nil && exports[startExport] != nil && exports[initializeExport] == nil:
		return 0, errNotReactor
	case exports[turnExport] != nil:
		return reactor, nil
	case exports[startExport] != nil:
		return command, nil
	}
	return 0, fmt.Errorf("its module exports neither %s (a reactor) nor %s (a command)", turnExport, startExport)
}

func checkImports(cm engine.CompiledModule, have provided) error {
	for _, def := range cm.ImportedFunctions() {
		module, name, _ := def.Import()
		got, ok := have[module][name]
		if !ok {
			return fmt.Errorf("its module imports %s.%s, which Escouade does not provide", module, name)
		}
		if !slices.Equal(got.ParamTypes(), def.ParamTypes()) || !slices.Equal(got.ResultTypes(), def.ResultTypes()) {
			return fmt.Errorf("its module imports %s.%s as %s; Escouade provides it as %s", module, name,
				signature(def.ParamTypes(), def.ResultTypes()), signature(got.ParamTypes(), got.ResultTypes()))
		}
	}
	for _, def := range cm.ImportedMemories() {
		module, name, _ := def.Import()
		return fmt.Errorf("its module imports the memory %s.%s, which Escouade does not provide", module, name)
	}
	return nil
}

func checkMemory(cm engine.CompiledModule, limit uint64) error {
	for _, def := range cm.ExportedMemories() {
		if start := uint64(def.Min()) << 16; start > limit {
			return fmt.Errorf("its module needs %d MB of memory at start, past its limit of %d MB", start>>20, limit>>20)
		}
	}
	return nil
}

// signature writes a function type as WebAssembly text does: "(i32) -> ()".
func signature(params, results []engine.ValueType) string {
	return list(params) + " -> " + list(results)
}

func list(types []engine.ValueType) string {
	s := "("
	for i, t := range types {
		if i > 0 {
			s += ", "
		}
		s += engine.ValueTypeName(t)
	}
	return s + ")"
}
