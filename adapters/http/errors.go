package httpaction

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/mcpdecl/mcpdecl/engine/text"
)

// describeTransportError says in words why a request got no response. The
// text never holds the URL's query string: the *url.Error that repeats the
// URL is dropped.
func describeTransportError(err error) string {
	err = text.UnwrapURLError(err)
	var origin *originError
	var redirect *redirectError
	var refusal *dialRefusal
	var dns *net.DNSError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var op *net.OpError
	var netErr net.Error
	switch {
	case errors.As(err, &origin):
		return origin.Error()
	case errors.As(err, &redirect):
		return redirect.Error()
	case errors.As(err, &refusal):
		return refusal.Error()
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "the host name " + dns.Name + " does not resolve (no such host)"
		}
		return "the host name " + dns.Name + " could not be resolved: " + dns.Err
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		return "the server's TLS certificate is not trusted: " + err.Error()
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "the TLS handshake failed; does the server speak plain HTTP? (" + err.Error() + ")"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused (" + err.Error() + ")"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection (" + err.Error() + ")"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "the connection timed out (" + err.Error() + ")"
	case errors.As(err, &op):
		return "the connection failed (" + err.Error() + ")"
	}
	return err.Error()
}
