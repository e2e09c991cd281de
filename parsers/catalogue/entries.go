package catalogue

// Default returns every entry ozdoctor knows, one function per area.
func Default() []Entry {
	var all []Entry
	for _, area := range [][]Entry{
		processEntries(),
		scmNodeEntries(),
		scmUpgradeEntries(),
		scmContainerEntries(),
		dnRatisEntries(),
		omRingEntries(),
	} {
		all = append(all, area...)
	}
	return all
}
