package signatures_test

import "flag"

var update = flag.Bool("update", false, "rewrite the cases' expectations from what the signatures found")
