// Command ferretdb-launcher runs FerretDB 1.24 with its SQLite backend for local tests.
//
// Why a launcher of our own instead of FerretDB's cmd/ferretdb: `go install` of that command
// fails here (the module proxy refuses the deprecation lookup, and a binary built from the
// module zip panics on its empty build/version/version.txt). The embeddable package
// github.com/FerretDB/FerretDB/ferretdb has neither problem, so this file only adds flags,
// a readiness line and signal handling around it.
//
// Protocol with scripts/infra (TypeScript):
//   - once the listener is bound, the MongoDB URL is printed as one line on stdout
//     ("ready mongodb://127.0.0.1:PORT/"), so a caller that asked for port 0 learns the port;
//   - logs go to stderr;
//   - SIGTERM or SIGINT shut down cleanly (listener closed, connections drained, SQLite closed);
//   - with -exit-on-stdin-eof, the end of stdin also shuts down, so an instance started by a
//     test run cannot outlive that run even when it crashes.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb-launcher: %s\n", err)
		os.Exit(1)
	}
}

func run() error {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27217", "TCP address to listen on; port 0 picks a free port")
	sqliteDir := flag.String("sqlite-dir", "", "directory of the SQLite databases (created if missing)")
	logLevel := flag.String("log-level", "error", "log level: debug, info, warn or error (FerretDB logs every unsupported command at warn)")
	exitOnStdinEOF := flag.Bool("exit-on-stdin-eof", false, "shut down when stdin reaches end of file")
	flag.Parse()

	if *sqliteDir == "" {
		return fmt.Errorf("-sqlite-dir is required")
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	dir, err := filepath.Abs(*sqliteDir)
	if err != nil {
		return fmt.Errorf("-sqlite-dir: %w", err)
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-sqlite-dir: %w", err)
	}

	// FerretDB wants a "file:" URI naming a directory, with a trailing slash.
	sqliteURL := (&url.URL{Scheme: "file", Path: dir + "/"}).String()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	if *exitOnStdinEOF {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listenAddr},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: sqliteURL,
	})
	if err != nil {
		return err
	}

	// The embeddable package binds the listener in New, so the address is known here.
	fmt.Printf("ready %s\n", f.MongoDBURI())

	return f.Run(ctx)
}
