package log4j

import (
	"math"
	"time"
)

// stampKind tells which timestamp shape starts a line.
type stampKind uint8

const (
	stampNone    stampKind = iota
	stampMillis            // yyyy-MM-dd HH:mm:ss,SSS  (%d{ISO8601}, %d{DEFAULT}, %d)
	stampSeconds           // yyyy-MM-dd HH:mm:ss      (L6, Docker Desktop prefix)
	stampShort             // yy/MM/dd HH:mm:ss        (L10)
)

// digit2 reads two decimal digits at b[i:i+2].
func digit2(b []byte, i int) (int64, bool) {
	d0, d1 := b[i]-'0', b[i+1]-'0'
	if d0 > 9 || d1 > 9 {
		return 0, false
	}
	return int64(d0)*10 + int64(d1), true
}

// parseStamp reads the timestamp at the start of b. It returns the wall-clock
// time as milliseconds since the Unix epoch as if the wall clock were UTC, the
// number of bytes the timestamp takes and its kind (stampNone if b does not
// start with a timestamp). Hours 0-23, minutes and seconds 0-60 are accepted
// (hand-edited samples carry "01:60:22"); out-of-range values roll over the way
// time.Date normalises them.
func parseStamp(b []byte) (ms int64, n int, kind stampKind) {
	if len(b) < 17 || b[0]-'0' > 9 {
		return 0, 0, stampNone
	}
	var y, mo, d int64
	var ok bool
	var t int // offset of HH
	switch {
	case b[2] == '/' && b[5] == '/' && b[8] == ' ':
		if y, ok = digit2(b, 0); !ok {
			return 0, 0, stampNone
		}
		y += 2000
		if mo, ok = digit2(b, 3); !ok {
			return 0, 0, stampNone
		}
		if d, ok = digit2(b, 6); !ok {
			return 0, 0, stampNone
		}
		t, n, kind = 9, 17, stampShort
	case len(b) >= 19 && b[4] == '-' && b[7] == '-' && (b[10] == ' ' || b[10] == 'T'):
		hi, ok1 := digit2(b, 0)
		lo, ok2 := digit2(b, 2)
		if !ok1 || !ok2 {
			return 0, 0, stampNone
		}
		y = hi*100 + lo
		if mo, ok = digit2(b, 5); !ok {
			return 0, 0, stampNone
		}
		if d, ok = digit2(b, 8); !ok {
			return 0, 0, stampNone
		}
		t, n, kind = 11, 19, stampSeconds
	default:
		return 0, 0, stampNone
	}
	if b[t+2] != ':' || b[t+5] != ':' {
		return 0, 0, stampNone
	}
	hh, ok1 := digit2(b, t)
	mm, ok2 := digit2(b, t+3)
	ss, ok3 := digit2(b, t+6)
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 60 || ss > 60 {
		return 0, 0, stampNone
	}
	var frac int64
	if kind == stampSeconds && len(b) >= 23 && (b[19] == ',' || b[19] == '.') {
		f0, f1, f2 := b[20]-'0', b[21]-'0', b[22]-'0'
		if f0 <= 9 && f1 <= 9 && f2 <= 9 {
			frac = int64(f0)*100 + int64(f1)*10 + int64(f2)
			n, kind = 23, stampMillis
		}
	}
	sec := daysFromCivil(y, mo, d)*86400 + hh*3600 + mm*60 + ss
	return sec*1000 + frac, n, kind
}

// daysFromCivil returns the number of days from 1970-01-01 to the given
// proleptic Gregorian date (H. Hinnant's algorithm). Days past the month's end
// roll over into the next month.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := m - 3
	if m <= 2 {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// zoner turns wall-clock milliseconds into UTC milliseconds for one location,
// caching the offset of the zone period it last looked up so that only a
// change of period (a DST switch) costs a time.Date call.
type zoner struct {
	loc      *time.Location
	utc      bool
	cached   bool
	off      int64 // seconds east of UTC
	from, to int64 // UTC seconds [from, to) in which off holds
}

func newZoner(loc *time.Location) zoner {
	if loc == nil {
		loc = time.UTC
	}
	return zoner{loc: loc, utc: loc == time.UTC}
}

// toUTC converts wall-clock milliseconds (see parseStamp) to Unix milliseconds.
func (z *zoner) toUTC(wall int64) int64 {
	if z.utc {
		return wall
	}
	sec := floorDiv(wall, 1000)
	if z.cached {
		if u := sec - z.off; u >= z.from && u < z.to {
			return wall - z.off*1000
		}
	}
	w := time.Unix(sec, 0).UTC()
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, z.loc)
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	z.off, z.from, z.to, z.cached = int64(off), math.MinInt64, math.MaxInt64, true
	if !start.IsZero() {
		z.from = start.Unix()
	}
	if !end.IsZero() {
		z.to = end.Unix()
	}
	return t.Unix()*1000 + (wall - sec*1000)
}

// time builds the time.Time of Unix milliseconds in the zoner's location.
func (z *zoner) time(ms int64) time.Time { return time.UnixMilli(ms).In(z.loc) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
