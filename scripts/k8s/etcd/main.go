// Command etcd is etcd's own server command, built from its published module: `go install` of
// go.etcd.io/etcd/server/v3 refuses the replace directives in etcd's go.mod, so this module
// requires the server at a fixed version and calls its entry point.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
