// Command ferretdb-launcher runs FerretDB 1.24 for local tests, on PostgreSQL (a private cluster
// the launcher owns) or on SQLite.
//
// Why a launcher of our own instead of FerretDB's cmd/ferretdb: `go install` of that command
// fails here (the module proxy refuses the deprecation lookup, and a binary built from the
// module zip panics on its empty build/version/version.txt). The embeddable package
// github.com/FerretDB/FerretDB/ferretdb has neither problem, so this program only adds flags,
// the PostgreSQL cluster's lifecycle, a readiness line and signal handling around it.
//
// Protocol with scripts/infra (TypeScript):
//   - once the listener is bound, the MongoDB URL is printed as one line on stdout
//     ("ready mongodb://127.0.0.1:PORT/"), so a caller that asked for port 0 learns the port;
//   - logs go to stderr, PostgreSQL's included;
//   - SIGTERM or SIGINT shut down cleanly: the listener closes, connections drain, then
//     PostgreSQL gets a fast shutdown (or SQLite closes);
//   - with -exit-on-stdin-eof, the end of stdin also shuts down, so an instance started by a
//     test run cannot outlive that run even when it crashes.
//
// The PostgreSQL cluster (ADR 0121) lives in -data-dir: initdb creates it on the first start,
// and every start runs its postmaster as a child of this process that listens only on a Unix
// socket, so nothing else reaches it and no TCP port is taken. The child gets a signal when
// this process dies however it dies (Linux's parent-death signal), so a killed launcher never
// leaves PostgreSQL behind.
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
	"runtime"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func init() {
	// The parent-death signal of a child is tied to the thread that started it: the main
	// goroutine keeps the main thread, which lives as long as the process.
	runtime.LockOSThread()
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb-launcher: %s\n", err)
		os.Exit(1)
	}
}

func run() error {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27217", "TCP address to listen on; port 0 picks a free port")
	backend := flag.String("backend", "postgresql", "storage: postgresql (a private cluster in -data-dir) or sqlite")
	dataDir := flag.String("data-dir", "", "directory of the data (created if missing)")
	postgresBin := flag.String("postgresql-bin", "", "directory of PostgreSQL's initdb and postgres (backend postgresql)")
	logLevel := flag.String("log-level", "error", "log level: debug, info, warn or error (FerretDB logs every unsupported command at warn)")
	exitOnStdinEOF := flag.Bool("exit-on-stdin-eof", false, "shut down when stdin reaches end of file")
	flag.Parse()

	if *dataDir == "" {
		return fmt.Errorf("-data-dir is required")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		return fmt.Errorf("-data-dir: %w", err)
	}
	if err = os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("-data-dir: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if *exitOnStdinEOF {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	config := ferretdb.Config{Listener: ferretdb.ListenerConfig{TCP: *listenAddr}, Logger: logger}
	switch *backend {
	case "sqlite":
		// FerretDB wants a "file:" URI naming a directory, with a trailing slash.
		config.Handler = "sqlite"
		config.SQLiteURL = (&url.URL{Scheme: "file", Path: dir + "/"}).String()
	case "postgresql":
		if *postgresBin == "" {
			return fmt.Errorf("-postgresql-bin is required with -backend postgresql")
		}
		cluster, err := startCluster(ctx, *postgresBin, dir)
		if err != nil {
			return err
		}
		defer cluster.stop()
		config.Handler = "postgresql"
		config.PostgreSQLURL = cluster.url
	default:
		return fmt.Errorf("-backend: %q is neither postgresql nor sqlite", *backend)
	}

	f, err := ferretdb.New(&config)
	if err != nil {
		return err
	}
	// The embeddable package binds the listener in New, so the address is known here.
	fmt.Printf("ready %s\n", f.MongoDBURI())
	return f.Run(ctx)
}
