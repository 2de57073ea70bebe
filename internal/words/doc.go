// Package words holds the small text helpers that messages for people
// share across packages.
package words
