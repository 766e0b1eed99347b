//go:build tools

// Package tools only records the dependency on Jaeger's command, so that `go mod tidy` keeps the
// requirements that `go build github.com/jaegertracing/jaeger/cmd/jaeger` needs. A main package
// cannot be imported by a program; it is built by its package path inside this module.
package tools

import _ "github.com/jaegertracing/jaeger/cmd/jaeger"
