// Package redact replaces what identifies a cluster in its logs and
// reports (host names, addresses, principals, users, volumes, buckets,
// keys, secrets) with pseudonyms that stay the same across files and runs
// through a map, so that a bundle or a report can be shared and read back
// (ozdoctor redact, and --reverse).
package redact
