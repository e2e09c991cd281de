package catalogue

func scmUpgradeEntries() []Entry {
	return nil
}
