// Package architecture holds the test that keeps docs/ARCHITECTURE.md
// true: the list under its drawing ("Every arrow") names every package of
// the module, in its layer, with every package of the module its non-test
// code imports, and no layer imports a higher one. The test reads the
// imports with go/build for Linux, macOS and Windows, so an import made on
// one system only is drawn too. When the page and the code disagree, the
// failure says which arrows to add or remove and gives each line to paste.
package architecture
