package detectors

import (
	"maps"
	"slices"
	"strings"

	"github.com/ozdoctor/ozdoctor/parsers"
	"github.com/ozdoctor/ozdoctor/parsers/catalogue"
)

// Identity maps datanode UUIDs and OM node IDs to hosts, learned from the
// logs themselves (DatanodeDetails renderings in SCM and datanode lines, OM
// lines that pair a node ID with its host, OM peer lists), and remembers
// each host's Ozone version (STARTUP_MSG).
type Identity struct {
	dnHost   map[string]string // datanode UUID -> host
	hostDN   map[string]string // host -> datanode UUID
	omHost   map[string]string // OM node ID -> host
	hostOM   map[string]string // host -> OM node ID
	versions map[string]string // host -> Ozone version (STARTUP_MSG)
	services map[string]string // host + "\x00" + component -> Ozone version (STARTUP_MSG)
	// generation counts the changes to the maps, so that a detector can
	// tell when a finding it rendered could now name more.
	generation int
}

// NewIdentity returns an empty identity map.
func NewIdentity() *Identity {
	return &Identity{dnHost: map[string]string{}, hostDN: map[string]string{},
		omHost: map[string]string{}, hostOM: map[string]string{}, versions: map[string]string{},
		services: map[string]string{}}
}

// Learn records what a signal tells about identities.
func (id *Identity) Learn(s *catalogue.Signal) {
	if d := s.Datanode; d.UUID != "" && d.Host != "" {
		id.AddDatanode(d.UUID, d.Host)
	}
	if s.Kind == catalogue.StartupMsg && s.Version != "" && s.Host != "" {
		id.versions[s.Host] = s.Version
		if len(id.services) < maxServices {
			id.services[s.Host+"\x00"+string(catalogue.ServiceComponent(s.Attrs["service"]))] = s.Version
		}
	}
	if s.OMNode != "" {
		if h := s.Attrs["omhost"]; h != "" {
			id.AddOM(s.OMNode, h)
		}
	}
	// An OM ring's peer lists pair every node ID with its address.
	if pl := s.Attrs["peerlist"]; pl != "" && s.Component == parsers.ComponentOM {
		for _, p := range catalogue.ParsePeerAddresses(pl) {
			if h := p.Host(); p.ID != "" && h != "" {
				id.AddOM(p.ID, h)
			}
		}
	}
}

// AddDatanode records that the datanode with uuid runs on host.
func (id *Identity) AddDatanode(uuid, host string) {
	uuid = strings.ToLower(uuid)
	if id.dnHost[uuid] == host && id.hostDN[ShortHost(host)] == uuid {
		return
	}
	id.dnHost[uuid] = host
	id.hostDN[ShortHost(host)] = uuid
	id.generation++
}

// AddOM records that OM node runs on host.
func (id *Identity) AddOM(node, host string) {
	if id.omHost[node] == host && id.hostOM[ShortHost(host)] == node {
		return
	}
	id.omHost[node] = host
	id.hostOM[ShortHost(host)] = node
	id.generation++
}

// Generation counts the changes to what the identity knows.
func (id *Identity) Generation() int { return id.generation }

// DatanodeHost returns the host of a datanode UUID, or "".
func (id *Identity) DatanodeHost(uuid string) string { return id.dnHost[strings.ToLower(uuid)] }

// DatanodeOnHost returns the UUID of the datanode on host, or "".
func (id *Identity) DatanodeOnHost(host string) string { return id.hostDN[ShortHost(host)] }

// OMHost returns the host of an OM node ID, or "".
func (id *Identity) OMHost(node string) string { return id.omHost[node] }

// OMOnHost returns the OM node ID running on host, or "".
func (id *Identity) OMOnHost(host string) string { return id.hostOM[ShortHost(host)] }

// Version returns the Ozone version host reported in STARTUP_MSG, or "".
func (id *Identity) Version(host string) string { return id.versions[host] }

// Complete fills a datanode's missing UUID or host from what is known.
func (id *Identity) Complete(d catalogue.Datanode) catalogue.Datanode {
	if d.Host == "" && d.UUID != "" {
		d.Host = id.DatanodeHost(d.UUID)
	}
	if d.UUID == "" && d.Host != "" {
		d.UUID = id.DatanodeOnHost(d.Host)
	}
	return d
}

// Datanodes returns the known datanode UUIDs, sorted.
func (id *Identity) Datanodes() []string { return sortedKeys(id.dnHost) }

// OMs returns the known OM node IDs, sorted.
func (id *Identity) OMs() []string { return sortedKeys(id.omHost) }

// ShortHost returns the first label of a host name ("dn1.example.com" -> "dn1"),
// so that a FQDN in a message and a short name in a file name compare equal.
func ShortHost(h string) string {
	if i := strings.IndexByte(h, '.'); i > 0 && !isIP(h) {
		return h[:i]
	}
	return h
}

func isIP(h string) bool {
	for i := 0; i < len(h); i++ {
		if (h[i] < '0' || h[i] > '9') && h[i] != '.' {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// maxServices bounds the (host, component) versions remembered.
const maxServices = 4096

// ServiceVersion is the Ozone version one host's component last started with.
type ServiceVersion struct {
	Host      string
	Component parsers.Component
	Version   string
}

// Services returns the versions the services' STARTUP_MSG banners printed,
// by host and component.
func (id *Identity) Services() []ServiceVersion {
	out := make([]ServiceVersion, 0, len(id.services))
	for _, k := range slices.Sorted(maps.Keys(id.services)) {
		host, comp, _ := strings.Cut(k, "\x00")
		out = append(out, ServiceVersion{Host: host, Component: parsers.Component(comp), Version: id.services[k]})
	}
	return out
}
