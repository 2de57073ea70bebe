//go:build !race

package server_test

// raceDetector is true when the tests run with -race, which makes each call
// many times dearer: load tests make fewer calls then.
const raceDetector = false
