package signature

import (
	"reflect"
	"strings"
	"time"

	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Event is a signal as a signature's expressions see it: `e` is the signal
// being matched, and each bound step's name is the signal it bound. Fields
// a signal's kind does not set are zero ("" / 0 / false / empty).
type Event struct {
	Kind      string            `json:"kind" doc:"the signal's kind (a catalogue entry's, or a signature's own)"`
	Time      time.Time         `json:"time" doc:"event time (the record's timestamp)"`
	Host      string            `json:"host" doc:"host that logged the record"`
	Component string            `json:"component" doc:"scm, om, datanode, recon, s3g (\"\" when unknown)"`
	Level     string            `json:"level" doc:"log4j level as printed (never filter on it: levels change across releases)"`
	Thread    string            `json:"thread" doc:"thread name"`
	Text      string            `json:"text" doc:"the record's first line (message only)"`
	File      string            `json:"file" doc:"file the record came from"`
	Line      int               `json:"line" doc:"line of the record in its file"`
	Datanode  Datanode          `json:"datanode" doc:"the datanode the message names (uuid, host, ip)"`
	Container int               `json:"container" doc:"container ID (#N)"`
	Pipeline  string            `json:"pipeline" doc:"pipeline UUID, lower case"`
	Pipelines []string          `json:"pipelines" doc:"pipeline UUIDs"`
	Group     string            `json:"group" doc:"Raft group ID, group-XXXXXXXXXXXX"`
	Peer      string            `json:"peer" doc:"Raft peer ID (datanode UUID or OM node ID)"`
	OMNode    string            `json:"om_node" doc:"OM node ID"`
	Peers     []string          `json:"peers" doc:"Raft peer IDs of a configuration"`
	OldPeers  []string          `json:"old_peers" doc:"Raft peer IDs of the old half of a transitional configuration"`
	Duration  time.Duration     `json:"duration" doc:"a duration the message prints (a pause, a timeout)"`
	Count     int               `json:"count" doc:"a count the message prints"`
	Index     int               `json:"index" doc:"Raft log index"`
	Term      int               `json:"term" doc:"Raft term"`
	BCSID     int               `json:"bcsid" doc:"block commit sequence ID"`
	MaxBCSID  int               `json:"max_bcsid" doc:"highest replica BCSID"`
	State     string            `json:"state" doc:"lifecycle, replica or role state as printed"`
	Reason    string            `json:"reason" doc:"a reason or cause the message prints"`
	Version   string            `json:"version" doc:"the subject's (software) version"`
	Version2  string            `json:"version2" doc:"the other side's version"`
	Apparent  string            `json:"apparent" doc:"the subject's apparent version"`
	Apparent2 string            `json:"apparent2" doc:"the other side's apparent version"`
	NonEmpty  bool              `json:"nonempty" doc:"the replica or container is not empty"`
	Force     bool              `json:"force" doc:"a forced delete"`
	Attrs     map[string]string `json:"attrs" doc:"a signature's own named groups, and rare extras an entry names"`
	Metric    string            `json:"metric" doc:"a /prom sample's metric name"`
	Value     float64           `json:"value" doc:"a /prom sample's value"`
}

// Datanode identifies a datanode as Ozone prints DatanodeDetails.
type Datanode struct {
	UUID string `json:"uuid" doc:"datanode UUID, lower case"`
	Host string `json:"host" doc:"host name"`
	IP   string `json:"ip" doc:"IP address"`
}

// Burst is what a count step binds under its name.
type Burst struct {
	First    Event    `json:"first" doc:"the first signal counted in the window that met the minimum"`
	Last     Event    `json:"last" doc:"the signal that met the minimum"`
	Count    int      `json:"count" doc:"signals counted in the window"`
	Distinct int      `json:"distinct" doc:"distinct values of the step's distinct expression"`
	Values   []string `json:"values" doc:"those distinct values, in order of first appearance"`
	Hosts    []string `json:"hosts" doc:"hosts that logged the counted signals, in order of first appearance"`
	// Set by count steps with distinct, and by each (each.go).
	Signals   []Event       `json:"signals" doc:"the signals counted, in order (at most 1024)"`
	Members   []Event       `json:"members" doc:"with distinct: the latest counted signal of each distinct value (a member); with each, of those that met their follow-up or still may"`
	Missed    []Event       `json:"missed" doc:"with each: the latest counted signal of every member whose follow-up window passed without it"`
	Returned  int           `json:"returned" doc:"with each: members that met their follow-up"`
	MaxReturn time.Duration `json:"max_return" doc:"with each: the longest time from a member's latest counted signal to its follow-up"`

	Per map[string]int `json:"per" doc:"signals counted for each value of the step's per expression (count.per)"`
}

// Row is one row of a running table (match.tables): the signals it took
// under one row key, in order.
type Row struct {
	Key    string         `json:"key" doc:"the row key: the first key of the signal that made the row"`
	Keys   []string       `json:"keys" doc:"every key the row is known by (a row expression may give several)"`
	First  Event          `json:"first" doc:"the row's first signal"`
	Last   Event          `json:"last" doc:"the row's latest signal"`
	Count  int            `json:"count" doc:"signals the row took"`
	Counts map[string]int `json:"counts" doc:"signals the row took, by kind"`
	Events []Event        `json:"events" doc:"its signals in order: all of them, or the first and the latest 20 when it took more than 40"`
}

// eventOf builds the view of s.
func eventOf(s *catalogue.Signal) Event {
	return Event{
		Kind: string(s.Kind), Time: s.Time, Host: s.Host, Component: string(s.Component),
		Level: strings.TrimSpace(s.Level.String()), Thread: s.Thread, Text: s.Text, File: s.Origin.File, Line: s.Origin.Line,
		Datanode:  Datanode{UUID: s.Datanode.UUID, Host: s.Datanode.Host, IP: s.Datanode.IP},
		Container: int(s.Container), Pipeline: s.Pipeline, Pipelines: s.Pipelines, Group: s.Group, Peer: s.Peer,
		OMNode: s.OMNode, Peers: s.Peers, OldPeers: s.OldPeers, Duration: s.Duration, Count: int(s.Count),
		Index: int(s.Index), Term: int(s.Term), BCSID: int(s.BCSID), MaxBCSID: int(s.MaxBCSID), State: s.State,
		Reason: s.Reason, Version: s.Version, Version2: s.Version2, Apparent: s.Apparent, Apparent2: s.Apparent2,
		NonEmpty: s.NonEmpty, Force: s.Force, Attrs: s.Attrs, Metric: s.Metric, Value: s.Value,
	}
}

// Field is one typed field expressions can read.
type Field struct {
	Name, Type, Doc string
}

// Fields lists the fields of Event, Datanode, Burst and Row as expressions see
// them, read from the types themselves (docs/signatures.md shows them).
func Fields() map[string][]Field {
	return map[string][]Field{
		"Event":    fieldsOf(reflect.TypeFor[Event]()),
		"Datanode": fieldsOf(reflect.TypeFor[Datanode]()),
		"Burst":    fieldsOf(reflect.TypeFor[Burst]()),
		"Row":      fieldsOf(reflect.TypeFor[Row]()),
	}
}

func fieldsOf(t reflect.Type) []Field {
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		out = append(out, Field{Name: f.Tag.Get("json"), Type: celTypeName(f.Type), Doc: f.Tag.Get("doc")})
	}
	return out
}

func celTypeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "timestamp"
	case t == reflect.TypeFor[time.Duration]():
		return "duration"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int:
		return "int"
	case reflect.Bool:
		return "bool"
	case reflect.Float64:
		return "double"
	case reflect.Slice:
		return "list(" + celTypeName(t.Elem()) + ")"
	case reflect.Map:
		return "map(" + celTypeName(t.Key()) + ", " + celTypeName(t.Elem()) + ")"
	case reflect.Struct:
		return t.Name()
	}
	return t.String()
}

// FieldTable renders Fields as the Markdown tables of docs/signatures.md.
func FieldTable() string {
	var b strings.Builder
	fields := Fields()
	for _, typ := range []string{"Event", "Datanode", "Burst", "Row"} {
		b.WriteString("| " + typ + " field | type | meaning |\n|---|---|---|\n")
		for _, f := range fields[typ] {
			b.WriteString("| `" + f.Name + "` | " + f.Type + " | " + strings.ReplaceAll(f.Doc, "|", "\\|") + " |\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
