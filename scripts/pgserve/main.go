// Command pgserve starts a throw-away PostgreSQL server for make bench (the
// team archive's speed figures), with PostgreSQL's durable defaults, in a
// new temporary folder; it prints that folder and the URLs of new
// databases, and leaves the server running until `pgserve -stop DIR`.
//
//	pgserve [-db NAME,...]   start, create each NAME (default bench), print "DIR URL..."
//	pgserve -stop DIR        stop the server in DIR and remove DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/benchledger/benchledger/internal/pgtest"
)

func main() {
	dbs := flag.String("db", "bench", "databases to create, comma-separated")
	stop := flag.String("stop", "", "stop the server in this folder and remove it")
	flag.Parse()
	if *stop != "" {
		if err := pgtest.StopIn(*stop); err != nil {
			fmt.Fprintln(os.Stderr, "pgserve:", err)
			os.Exit(1)
		}
		return
	}
	srv, err := pgtest.StartDurable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgserve:", err)
		os.Exit(1)
	}
	line := []string{srv.Dir()}
	for _, db := range strings.Split(*dbs, ",") {
		url, err := srv.CreateDatabase(db)
		if err != nil {
			srv.Stop()
			fmt.Fprintln(os.Stderr, "pgserve:", err)
			os.Exit(1)
		}
		line = append(line, url)
	}
	fmt.Println(strings.Join(line, " "))
}
