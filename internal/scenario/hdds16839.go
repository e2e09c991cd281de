package scenario

func hdds16839Scripts() map[string]Script {
	return map[string]Script{}
}
