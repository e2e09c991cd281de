package scenario

func hdds17519Scripts() map[string]Script {
	return map[string]Script{}
}
