package pgtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// tlsFiles are a test CA and a server certificate signed by it for
// 127.0.0.1, written into the server's folder.
type tlsFiles struct {
	CAFile, certFile, keyFile string
}

var (
	tlsOnce sync.Once
	tlsSrv  *server
	tlsCA   string
	tlsErr  error
)

// TLSServer starts (once per test binary) a second server that listens on
// 127.0.0.1 with TLS and refuses TCP connections without it, and returns
// the URL of a new database on it for sslmode=verify-full against the test
// CA, and the CA's file. Stop stops it too. The test skips where no
// server can be started.
func TLSServer(t testing.TB) (verifyFullURL, caFile string) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	tlsOnce.Do(func() {
		var files tlsFiles
		tlsSrv, tlsErr = startServer(serverOptions{tls: &files})
		if tlsErr == nil {
			tlsSrv.watch()
			tlsCA = files.CAFile
		}
	})
	if tlsErr != nil {
		t.Fatalf("the TLS server: %v", tlsErr)
	}
	name := fmt.Sprintf("tls%d_%d", os.Getpid(), dbSeq.Add(1))
	if _, err := tlsSrv.admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() { tlsSrv.admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {tlsCA}}
	u := url.URL{Scheme: "postgres", User: url.User(Superuser), Host: "127.0.0.1:" + strconv.Itoa(tlsSrv.port), Path: "/" + name, RawQuery: q.Encode()}
	return u.String(), tlsCA
}

// install writes the CA, the server's certificate and key (readable by the
// server's user only, as PostgreSQL demands) and a pg_hba.conf that takes
// TCP connections over TLS only; it returns the address and port to
// listen on.
func (f *tlsFiles) install(s *server) (listen string, port int, err error) {
	ca, caKey, err := newCert(nil, nil, "benchledger test CA", true)
	if err != nil {
		return "", 0, err
	}
	cert, key, err := newCert(ca, caKey, "127.0.0.1", false)
	if err != nil {
		return "", 0, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", 0, err
	}
	f.CAFile = filepath.Join(s.dir, "ca.crt")
	f.certFile = filepath.Join(s.dir, "server.crt")
	f.keyFile = filepath.Join(s.dir, "server.key")
	hba := filepath.Join(s.data, "pg_hba.conf")
	for _, w := range []struct {
		path string
		data []byte
	}{
		{f.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})},
		{f.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})},
		{f.keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})},
		{hba, []byte("local all all trust\nhostssl all all 127.0.0.1/32 trust\n")},
	} {
		if err := os.WriteFile(w.path, w.data, 0o600); err != nil {
			return "", 0, err
		}
		if s.runAs != nil {
			if err := chownLike(w.path, s.dir); err != nil {
				return "", 0, err
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, err
	}
	port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	return "127.0.0.1", port, nil
}

// chownLike gives path the owner of dir (the server's user).
func chownLike(path, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	uid, gid := ownerOf(st)
	return os.Chown(path, uid, gid)
}

// newCert makes a certificate for name, signed by parent (self-signed when
// parent is nil).
func newCert(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, name string, isCA bool) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP(name)}
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// UnrelatedCA is the PEM of a CA that signed none of the servers'
// certificates: a client that trusts only it must refuse them.
func UnrelatedCA(t testing.TB) string {
	t.Helper()
	ca, _, err := newCert(nil, nil, "benchledger unrelated CA", true)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw}))
}
