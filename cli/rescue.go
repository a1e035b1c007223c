package cli

import (
	"fmt"
	"time"
)

// defaultRescueAfter is --rescue-after's default without a session
// timeout.
const defaultRescueAfter = 30 * time.Minute

// rescueMargin is what --rescue-after adds, by default, to a session
// timeout: a quarter of it and two minutes. A job is stopped, as failed,
// at nine tenths of --rescue-after (River rescues only jobs past their
// timeout), so the margin must outgrow a tenth: 0.9 × (1.25 T + 2 min) is
// 1.125 T + 1.8 min, which leaves a session that stops at its timeout
// time to be stored, however long the timeout.
func rescueMargin(sessionTimeout time.Duration) time.Duration {
	return sessionTimeout/4 + 2*time.Minute
}

// rescueAfter is the --rescue-after to use: the flag's value when the user
// gave it, else, with a session timeout, the timeout plus rescueMargin,
// else the flag's default.
func rescueAfter(flag time.Duration, given bool, sessionTimeout time.Duration) time.Duration {
	if given || sessionTimeout <= 0 {
		return flag
	}
	return sessionTimeout + rescueMargin(sessionTimeout)
}

// rescueWarning says, when rescue cuts sessions that may run for
// sessionTimeout short (a job is stopped at nine tenths of it), which
// --rescue-after would not; "" when it does not.
func rescueWarning(rescue, sessionTimeout time.Duration) string {
	if sessionTimeout <= 0 || rescue*9/10 > sessionTimeout {
		return ""
	}
	return fmt.Sprintf("--rescue-after %s stops a job at %s, before its session's timeout of %s: give --rescue-after %s or more",
		rescue, rescue*9/10, sessionTimeout, rescueAfter(0, false, sessionTimeout))
}
