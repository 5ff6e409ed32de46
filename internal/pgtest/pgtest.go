// Package pgtest starts a real PostgreSQL server for tests: one per test
// binary, in a temporary data directory, listening only on a Unix socket
// there, and gives each test a fresh database on it. Without PostgreSQL's
// binaries (initdb, pg_ctl) tests that ask for it skip with a message.
//
// PostgreSQL refuses to run as root, so when the tests run as root (CI)
// the server runs as the unprivileged "postgres" (or "nobody") user.
package pgtest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Superuser is the role initdb creates; every test database is owned by it.
const Superuser = "benchledger"

type server struct {
	dir, data, socket string
	port              int
	binDir            string
	runAs             []string // the command prefix that drops root, or nil
	admin             *sql.DB
}

var (
	once     sync.Once
	srv      *server
	startErr error
	dbSeq    atomic.Int64
)

// findBin returns the directory holding initdb and pg_ctl: $PATH first,
// then Debian's /usr/lib/postgresql/<version>/bin, the newest version.
func findBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, pg_ctl) on $PATH or in /usr/lib/postgresql/*/bin; install Debian's postgresql package")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// unprivileged is the user the server runs as when we are root.
func unprivileged() (*user.User, error) {
	for _, name := range []string{"postgres", "nobody"} {
		if u, err := user.Lookup(name); err == nil {
			return u, nil
		}
	}
	return nil, fmt.Errorf("running as root and neither user postgres nor nobody exists to run PostgreSQL as")
}

func start() (*server, error) {
	s, err := startServer(serverOptions{})
	if err != nil {
		return nil, err
	}
	s.watch()
	return s, nil
}

// startServer initialises and starts a server in a new temporary folder
// (one the unprivileged user can reach when we are root). A test server trades durability for speed; a
// durable one keeps PostgreSQL's defaults (fsync, synchronous commit), as a
// team's server would, for speed figures that mean something.
type serverOptions struct {
	durable bool
	// tls, when set, makes the server listen on 127.0.0.1 at a free port
	// with TLS, and accept TCP connections over TLS only.
	tls *tlsFiles
}

func startServer(o serverOptions) (*server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(folderRoot(o.durable), "blpg")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, data: filepath.Join(dir, "data"), socket: dir, port: 5432, binDir: bin}
	if os.Geteuid() == 0 {
		u, err := unprivileged()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.runAs = []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", "--"}
	}
	if out, err := s.run("initdb", "-D", s.data, "-U", Superuser, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// Unix socket only (no TCP port to collide with), unless TLS is the
	// point.
	listen := "''"
	if o.tls != nil {
		if listen, s.port, err = o.tls.install(s); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	opts := fmt.Sprintf("-c listen_addresses=%s -c unix_socket_directories=%s -c port=%d -c max_connections=200", listen, s.socket, s.port)
	if o.tls != nil {
		opts += fmt.Sprintf(" -c ssl=on -c ssl_cert_file=%s -c ssl_key_file=%s", o.tls.certFile, o.tls.keyFile)
	}
	if !o.durable {
		// A test server's data is thrown away.
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	if out, err := s.run("pg_ctl", "-D", s.data, "-l", filepath.Join(dir, "server.log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	s.admin, err = sql.Open("pgx", s.url("postgres"))
	if err == nil {
		err = s.admin.Ping()
	}
	if err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// Server is a PostgreSQL server started outside a test (make bench): it
// runs until Stop, with PostgreSQL's durable defaults.
type Server struct{ s *server }

// StartDurable starts a server in a new temporary folder (Dir), which Stop
// removes.
func StartDurable() (*Server, error) {
	s, err := startServer(serverOptions{durable: true})
	if err != nil {
		return nil, err
	}
	return &Server{s}, nil
}

// Dir is the server's folder: its data and socket.
func (s *Server) Dir() string { return s.s.dir }

// CreateDatabase creates database name and returns its postgres:// URL.
func (s *Server) CreateDatabase(name string) (string, error) {
	if _, err := s.s.admin.Exec("CREATE DATABASE " + name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.s.url(name), nil
}

// Stop stops the server and removes its folder.
func (s *Server) Stop() { s.s.stop() }

// StopIn stops a server that StartDurable left running in dir (by another
// process) and removes the folder.
func StopIn(dir string) error {
	bin, err := findBin()
	if err != nil {
		return err
	}
	s := &server{dir: dir, data: filepath.Join(dir, "data"), binDir: bin}
	if os.Geteuid() == 0 {
		u, err := unprivileged()
		if err != nil {
			return err
		}
		s.runAs = []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", "--"}
	}
	s.stop()
	return nil
}

// watch starts a watchdog that stops the server and removes its folder
// once this test process is gone, however it ended (a timeout, a kill):
// Stop is the usual way, this is for when TestMain never gets to it.
func (s *server) watch() {
	stop := strings.Join(append(append([]string{}, s.runAs...), filepath.Join(s.binDir, "pg_ctl"), "-D", s.data, "-m", "immediate", "-w", "stop"), " ")
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null && [ -d %s ]; do sleep 1; done; [ -d %s ] && { %s >/dev/null 2>&1; rm -rf %s; }`,
		os.Getpid(), s.data, s.data, stop, s.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = os.TempDir() // pg_ctl, as the server's user, needs a folder it may enter
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

func (s *server) run(tool string, args ...string) ([]byte, error) {
	argv := append(append([]string{}, s.runAs...), append([]string{filepath.Join(s.binDir, tool)}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	// Its own process group: a test's Ctrl-C must not reach the server
	// before Stop does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd.CombinedOutput()
}

func (s *server) url(db string) string {
	q := url.Values{"host": {s.socket}, "port": {strconv.Itoa(s.port)}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User(Superuser), Path: "/" + db, RawQuery: q.Encode()}).String()
}

func (s *server) stop() {
	if s.admin != nil {
		s.admin.Close()
	}
	s.run("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.dir)
}

// Available starts the server if need be and says why it cannot be had.
func Available() error {
	once.Do(func() { srv, startErr = start() })
	return startErr
}

// Stop stops the server if it was started; call it from TestMain after
// m.Run.
func Stop() {
	if srv != nil {
		srv.stop()
		srv = nil
	}
	if tlsSrv != nil {
		tlsSrv.stop()
		tlsSrv = nil
	}
}

// Parallel makes n the number of parallel tests (-test.parallel) unless the
// command line gave one: tests that mostly wait (on this server, a browser,
// a child process) keep two cores busy only when more of them run than
// GOMAXPROCS. Call it from TestMain before m.Run.
func Parallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// Main is a TestMain body: run the tests, eight at a time (each test's
// database is its own, and most of a test's time is the server's), then
// stop the server.
func Main(m *testing.M) {
	Parallel(8)
	code := m.Run()
	Stop()
	os.Exit(code)
}

// NewDatabase creates an empty database for this test and returns its
// postgres:// URL; the database is dropped when the test ends. The test
// skips when no server can be started.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := srv.admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		srv.admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	return srv.url(name)
}

// URL returns the URL of database db as user (for a role a test made).
func URL(db, user string) string {
	u, _ := url.Parse(srv.url(db))
	u.User = url.User(user)
	return u.String()
}

// DatabaseName is the database a NewDatabase URL names.
func DatabaseName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// Exec runs statements as the superuser, connected to the server's
// "postgres" database (for roles, which are the whole server's).
func Exec(t testing.TB, statements string) {
	t.Helper()
	if _, err := srv.admin.Exec(statements); err != nil {
		t.Fatalf("as superuser: %v\n%s", err, statements)
	}
}

// Client is what a PostgreSQL client program (psql, pg_dump, createdb,
// pg_restore) needs to reach the test server: the folder of the server's
// own binaries (the clients of the same version) and the socket's host and
// port, for -h and -p.
func Client(t testing.TB) (binDir, host string, port int) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	return srv.binDir, srv.socket, srv.port
}

// DropDatabase drops db if it exists (a test's own extra database).
func DropDatabase(t testing.TB, db string) {
	t.Helper()
	if _, err := srv.admin.Exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"); err != nil {
		t.Errorf("drop database %s: %v", db, err)
	}
}
