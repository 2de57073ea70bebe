package schema

import "strings"

// suggest returns the candidate that alias (when not nil) gives for got,
// or else the candidate closest to got, or "" when none is close enough to
// be a likely typo.
func suggest(got string, candidates []string, alias func(string) string) string {
	lower := strings.ToLower(got)
	if alias != nil {
		if a := alias(lower); a != "" {
			return a
		}
	}
	best, bestDist := "", len(got)
	limit := 2
	if len(got) <= 4 {
		limit = 1
	}
	for _, c := range candidates {
		if strings.EqualFold(c, got) {
			return c
		}
		if d := distance(lower, c); d <= limit && d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b, in
// bytes: the number of insertions, deletions, substitutions and swaps of
// neighbours that turn one into the other.
func distance(a, b string) int {
	// rows[0], rows[1] and rows[2] are the rows for i-2, i-1 and i.
	var rows [3][]int
	for r := range rows {
		rows[r] = make([]int, len(b)+1)
	}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur, prev, prev2 := rows[2], rows[1], rows[0]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, prev2
	}
	return rows[1][len(b)]
}
