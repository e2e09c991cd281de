package catalogue

func dnRatisEntries() []Entry {
	return nil
}
