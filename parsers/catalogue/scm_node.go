package catalogue

func scmNodeEntries() []Entry {
	return nil
}
