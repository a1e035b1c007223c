// Package duplicates has problems that a go vet analyzer and a staticcheck
// check both report (see sameProblem in ../../dedupe.go): the comment on
// each line names the pair, or why the alerts stay apart.
package duplicates

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"testing"
)

// S has struct tags that go vet's structtag and staticcheck's SA5008 each
// find fault with, differently.
type S struct {
	A int `json:"a"`
	B int `json:"a"`                     // structtag only (a repeated name)
	C int `json:"c,omitempty,omitempty"` // SA5008 only (a repeated option)
}

// F misuses what it can.
func F(t *testing.T, x int, y string) {
	fmt.Printf("%d\n", y)  // printf SA5009
	fmt.Printf("%s %s", y) // printf SA5009
	fmt.Sprintf("%d", x)   // unusedresult SA4017
	errors.New("x")        // unusedresult SA4017
	x = x                  // assign SA4018
	if x == 1 || x == 1 {  // bools SA4000
	}
	var v S
	json.Unmarshal([]byte("{}"), v) // unmarshal SA1014
	c := make(chan os.Signal)
	signal.Notify(c, os.Interrupt) // sigchanyzer SA1017
	var wg sync.WaitGroup
	go func() { // SA2002 here ...
		wg.Add(1) // waitgroup SA2000
		defer wg.Done()
		t.Fatal("x") // ... testinggoroutine here: different lines, apart
	}()
	wg.Wait()
	s := []int{}
	s = append(s) // appends SA4021, and SA4006 and SA4010 alone
	fmt.Printf(y) // printf SA1006
	if F == nil { // nilfunc SA4031
	}
	fmt.Printf("%d %d", x, y)                       // printf SA5009 ...
	fmt.Printf("%s", x)                             // ... and again on the next line: pairs by line
	_ = fmt.Sprintf("%d", y) + fmt.Sprintf("%s", x) // two pairs on one line, in order
	//lint:ignore SA5009 the vet alert stays alone
	fmt.Printf("%d", y)
}
