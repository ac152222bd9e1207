package web

// The words of Settings › Network, added to texts here so that the page
// keeps its words beside it.
func init() {
	for lang, words := range map[string]map[string]string{
		"en": {
			"network":          "Network",
			"network.link":     "Settings › Network",
			"network.title":    "Settings › Network",
			"network.proxy":    "Proxy",
			"network.help":     "Requests of isolated plugins and installs from git go through this proxy: then only the host's name is judged, the proxy dials. Example: http://proxy.example:3128. Leave empty for none.",
			"network.save":     "Save",
			"network.saved":    "Proxy saved: plugins started from now on go through it.",
			"network.cleared":  "No proxy: plugins started from now on connect themselves, through the egress guard.",
			"network.flag":     "This view was started with --proxy %s, which is used instead of the value below until it is started without it.",
			"install.source":   "Cloned from %s",
			"plugin.source":    "Installed from %s",
			"plugin.source.at": "Installed from %s at commit %s",
		},
		"fr": {
			"network":          "Réseau",
			"network.link":     "Réglages › Réseau",
			"network.title":    "Réglages › Réseau",
			"network.proxy":    "Proxy",
			"network.help":     "Les requêtes des plugins isolés et les installations depuis git passent par ce proxy : seul le nom de l’hôte est alors jugé, le proxy se connecte. Exemple : http://proxy.example:3128. Laisse vide pour aucun.",
			"network.save":     "Enregistrer",
			"network.saved":    "Proxy enregistré : les plugins démarrés à partir de maintenant passent par lui.",
			"network.cleared":  "Pas de proxy : les plugins démarrés à partir de maintenant se connectent eux-mêmes, derrière le garde de sortie.",
			"network.flag":     "Cette vue a été lancée avec --proxy %s, utilisé à la place de la valeur ci-dessous tant qu’elle est lancée ainsi.",
			"install.source":   "Cloné depuis %s",
			"plugin.source":    "Installé depuis %s",
			"plugin.source.at": "Installé depuis %s au commit %s",
		},
	} {
		for k, v := range words {
			texts[lang][k] = v
		}
	}
}
