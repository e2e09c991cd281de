package cases

import (
	"fmt"
	"reflect"
	"time"
)

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// CheckState reports what would stop a checkpoint codec from saving a
// detector's state: the codec walks every struct field (exported or not)
// except those tagged `state:"-"`, and supports structs, pointers (each
// reachable once), maps, slices, arrays, strings, numbers, bools,
// time.Time and time.Duration. It returns the first problem with its path.
func CheckState(det any) error {
	w := stateWalker{seen: map[uintptr]string{}}
	return w.walk(reflect.ValueOf(det), "detector")
}

type stateWalker struct {
	seen map[uintptr]string
}

func (w stateWalker) walk(v reflect.Value, path string) error {
	if v.Type() == timeType || v.Type() == durationType {
		return nil
	}
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return nil
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if prev, ok := w.seen[v.Pointer()]; ok {
			return fmt.Errorf("%s: the same pointer is reachable as %s", path, prev)
		}
		w.seen[v.Pointer()] = path
		return w.walk(v.Elem(), "(*"+path+")")
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("state") == "-" {
				continue
			}
			if err := w.walk(v.Field(i), path+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := w.walk(it.Key(), path+"{key}"); err != nil {
				return err
			}
			if err := w.walk(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a %s cannot be saved (tag the field `state:\"-\"` if it is derived from construction)", path, v.Type())
}
