package scenario

func hdds17674Scripts() map[string]Script {
	return map[string]Script{}
}
