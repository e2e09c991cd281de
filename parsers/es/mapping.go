// Package es reads Ozone logs that a log shipper stored in Elasticsearch: it
// asks only for the documents that can become signals (the catalogue's
// literals pushed down as a query), pages through them with a point in time
// and search_after, sliced across parallel workers and merged back in event
// time, and reads silences from a date histogram of document counts.
package es

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Mapping names the document fields that hold a log event.
type Mapping struct {
	Time    string // event time, a date field
	Message string // the raw line(s)
	Host    string
	Path    string // the file the shipper read
	Offset  string // byte offset in that file ("" if the shipper records none)
	Cluster string // the field naming the Ozone cluster ("" if an index holds one cluster)
}

// presets are the mappings of common shippers' defaults.
func presets() map[string]Mapping {
	return map[string]Mapping{
		// ECS, as Filebeat and Elastic Agent write it.
		"ecs": {Time: "@timestamp", Message: "message", Host: "host.name", Path: "log.file.path", Offset: "log.offset", Cluster: "labels.ozone_cluster"},
		// Fluent Bit's tail input with Path_Key file, Offset_Key offset and a
		// record_modifier adding hostname, sent by its es output.
		"fluentbit": {Time: "@timestamp", Message: "log", Host: "hostname", Path: "file", Offset: "offset", Cluster: "ozone_cluster"},
		// Logstash's file input without ECS compatibility.
		"logstash": {Time: "@timestamp", Message: "message", Host: "host", Path: "path", Cluster: "ozone_cluster"},
	}
}

// Preset returns the mapping of a named preset.
func Preset(name string) (Mapping, error) {
	m, ok := presets()[name]
	if !ok {
		return Mapping{}, fmt.Errorf("unknown field mapping %q (known: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return m, nil
}

// PresetNames lists the presets.
func PresetNames() []string {
	return slices.Sorted(maps.Keys(presets()))
}

// Set changes one field of the mapping by its name: time, message, host,
// path, offset or cluster.
func (m *Mapping) Set(name, field string) error {
	to := map[string]*string{"time": &m.Time, "message": &m.Message, "host": &m.Host, "path": &m.Path, "offset": &m.Offset, "cluster": &m.Cluster}[name]
	if to == nil {
		return fmt.Errorf("unknown mapping key %q (time, message, host, path, offset or cluster)", name)
	}
	*to = field
	return nil
}

// fields are the source fields a search asks for.
func (m Mapping) fields() []string {
	fs := []string{m.Time, m.Message, m.Host, m.Path}
	if m.Offset != "" {
		fs = append(fs, m.Offset)
	}
	return fs
}
