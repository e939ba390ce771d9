package main

import (
	"fmt"
	"io"
	"strings"
)

// rowTable prints a table one row at a time, each as soon as it is
// measured, so that a run stopped early has shown every row it finished
// (a tabwriter would hold every row back until the end to size its
// columns). Every column has a fixed width, that of its title or more
// where asked; the first column is aligned left, the others right. A
// value wider than its column pushes the rest of its row along.
type rowTable struct {
	w      io.Writer
	widths []int
}

// column is a column of a rowTable: its title and the width its values
// need at least.
type column struct {
	title string
	width int
}

// newRowTable prints the titles of cols on w and returns the table.
func newRowTable(w io.Writer, cols ...column) *rowTable {
	t := &rowTable{w: w}
	titles := make([]string, len(cols))
	for i, c := range cols {
		t.widths = append(t.widths, max(len(c.title), c.width))
		titles[i] = c.title
	}
	t.row(titles...)
	return t
}

// row prints one row.
func (t *rowTable) row(values ...string) {
	var b strings.Builder
	for i, v := range values {
		width := 0
		if i < len(t.widths) {
			width = t.widths[i]
		}
		switch {
		case i == 0:
			fmt.Fprintf(&b, "%-*s", width, v)
		default:
			fmt.Fprintf(&b, "  %*s", width, v)
		}
	}
	b.WriteByte('\n')
	io.WriteString(t.w, b.String())
}
