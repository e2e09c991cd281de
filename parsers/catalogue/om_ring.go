package catalogue

func omRingEntries() []Entry {
	return nil
}
