// Package plural picks the word that agrees with a count: "1 change",
// "3 changes".
package plural

// Integer is any integer type a count may have.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// Word returns one when n is 1, else many.
func Word[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
