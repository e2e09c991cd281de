package scenario

func hdds16809Scripts() map[string]Script {
	return map[string]Script{}
}
