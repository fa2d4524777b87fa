package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
)

// tlsOptions is what every connection of this run adds to its options: nothing, or TLS trusting
// the -tls-ca file. Set once in main, before any connection; read-only afterwards.
var tlsOptions []nats.Option

// useTLS makes every connection use TLS, trusting the CA certificates in caFile (PEM) and
// checking the server's name as nats.go always does. The file is read once here, not on each
// connect (nats.RootCAs would read it again per connection, a cost that is the client's).
func useTLS(caFile string) error {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("cannot read -tls-ca: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("no PEM certificate in -tls-ca: %s", caFile)
	}
	tlsOptions = []nats.Option{nats.Secure(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})}
	return nil
}
