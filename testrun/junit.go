package testrun

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML, as CI systems read it.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",cdata"`
	}
)

// WriteJUnit writes results as a JUnit XML report: one suite per test
// file, one case per test. detail gives the text of a failed test's
// failure element: its failures, diffs and trace.
func WriteJUnit(w io.Writer, results []*Result, detail func(*Result) string) error {
	doc := junitSuites{}
	index := map[*File]int{}
	var total time.Duration
	for _, r := range results {
		f := r.Test.File
		i, ok := index[f]
		if !ok {
			i = len(doc.Suites)
			index[f] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: f.Name})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: r.Test.Name, ClassName: f.Name, Time: seconds(r.Took)}
		if !r.Passed() {
			msg := "the configuration did not load"
			if len(r.Failures) > 0 {
				msg = r.Failures[0].Message
			}
			c.Failure = &junitFailure{Message: firstLine(msg), Text: detail(r)}
			s.Failures++
			doc.Failures++
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
		doc.Tests++
		total += r.Took
	}
	for i := range doc.Suites {
		var t time.Duration
		for _, r := range results {
			if r.Test.File.Name == doc.Suites[i].Name {
				t += r.Took
			}
		}
		doc.Suites[i].Time = seconds(t)
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
