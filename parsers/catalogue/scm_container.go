package catalogue

func scmContainerEntries() []Entry {
	return nil
}
