package main

// TLS settings and the TLS cases. Every connection the program makes takes its TLS settings from
// the environment, so that any case runs over TLS when they are set:
//
//	CLIENTTEST_TLS_CA          PEM file of the CA the client trusts (nats.RootCAs)
//	CLIENTTEST_TLS_CERT, _KEY  client certificate and key, for mutual TLS (nats.ClientCert)
//	CLIENTTEST_TLS_FIRST       "1": TLS handshake before INFO
//	CLIENTTEST_TLS_RELOAD_CA   tls-reload only: the CA of the certificate the server reloads
//
// With none of them set, the client uses nats.go's defaults (it still starts TLS, trusting the
// system's CAs, when the server's INFO says tls_required). nats.go checks the server's host name
// against the URL's by itself.
//
// nats.go 1.22.1 (Debian's golang-github-nats-io-go-nats-dev) has no TLSHandshakeFirst: a later
// version added it (nats-io/nats.go#1433). With CLIENTTEST_TLS_FIRST set the program therefore fails every case without
// connecting (tlsUnsupported) rather than quietly connecting after INFO.

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
)

// tlsOptions returns the nats.go options the CLIENTTEST_TLS_* variables ask for.
func tlsOptions() []nats.Option {
	var opts []nats.Option
	if ca := os.Getenv("CLIENTTEST_TLS_CA"); ca != "" {
		opts = append(opts, nats.RootCAs(ca))
	}
	if cert := os.Getenv("CLIENTTEST_TLS_CERT"); cert != "" {
		opts = append(opts, nats.ClientCert(cert, os.Getenv("CLIENTTEST_TLS_KEY")))
	}
	return opts
}

// tlsUnsupported returns why the CLIENTTEST_TLS_* settings cannot be honoured, or "".
func tlsUnsupported() string {
	if os.Getenv("CLIENTTEST_TLS_FIRST") == "1" {
		return "nats.go " + nats.Version + " has no TLSHandshakeFirst"
	}
	return ""
}

// connectRefused expects the connection to fail, and prints "REFUSED <error>" so that the caller
// can check why.
func connectRefused() error {
	nc, err := connect("go-refused", nil)
	if err == nil {
		defer nc.Close()
		return fmt.Errorf("connected to %s (tls required by the server: %v)", nc.ConnectedUrl(),
			nc.TLSRequired())
	}
	fmt.Printf("REFUSED %v\n", err)
	return nil
}

// tlsReload holds a connection while the server reloads its certificate: it prints "RELOAD",
// after which the caller replaces the certificate with one from CLIENTTEST_TLS_RELOAD_CA; a new
// connection trusting only that CA then succeeds, the held one was never dropped, and a message
// goes from the new connection to the held one and back.
func tlsReload() error {
	disconnected := make(chan error, 1)
	held, err := connect("go-held", nil, nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
		select {
		case disconnected <- err:
		default:
		}
	}))
	if err != nil {
		return err
	}
	defer held.Close()
	toHeld, err := held.SubscribeSync("go.reload.held")
	if err != nil {
		return err
	}
	if err := held.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	fmt.Println("RELOAD")
	var renewed *nats.Conn
	var last error
	for deadline := time.Now().Add(waitTimeout); renewed == nil; {
		if time.Now().After(deadline) {
			return fmt.Errorf("no connection trusting only the renewed certificate's CA: %w", last)
		}
		renewed, last = nats.Connect(url, nats.Name("go-renewed"), nats.Timeout(waitTimeout),
			nats.MaxReconnects(0), nats.RootCAs(os.Getenv("CLIENTTEST_TLS_RELOAD_CA")))
		if renewed == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	defer renewed.Close()
	toRenewed, err := renewed.SubscribeSync("go.reload.renewed")
	if err != nil {
		return err
	}
	if err := renewed.FlushTimeout(waitTimeout); err != nil {
		return err
	}
	if err := renewed.Publish("go.reload.held", []byte("to held")); err != nil {
		return err
	}
	if m, err := next(toHeld); err != nil || string(m.Data) != "to held" {
		return fmt.Errorf("held connection after the reload: %v %v", m, err)
	}
	if err := held.Publish("go.reload.renewed", []byte("to renewed")); err != nil {
		return err
	}
	if m, err := next(toRenewed); err != nil || string(m.Data) != "to renewed" {
		return fmt.Errorf("renewed connection: %v %v", m, err)
	}
	select {
	case err := <-disconnected:
		return fmt.Errorf("held connection was dropped: %v", err)
	default:
	}
	if !held.IsConnected() {
		return errors.New("held connection is not connected")
	}
	return nil
}
