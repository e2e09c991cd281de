package scenario

func hdds17425Scripts() map[string]Script {
	return map[string]Script{}
}
