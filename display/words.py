"""The display's own words (its pages' frame), in each language it speaks; the game's words
are its package's (``controller/games/<game>/display.py``)."""

from __future__ import annotations

WORDS: dict[str, dict[str, str]] = {
    "es": {
        "limits": "límites de la mesa", "min": "mínimo", "max": "máximo", "chips": "fichas",
        "pending": "cambio anunciado: {min_bet}-{max_bet} fichas, {when}",
        "no_daemon": "el controlador de la mesa no está en marcha: lo que se ve es lo "
                     "último que anotó", "daemon_running": "controlador en marcha, pid {pid}",
        "daemon_stopped": "controlador detenido ({why})",
        "waiting": "esperando el diario de la mesa: {problem}",
        "held": "juegos detenidos para el inspector", "none_held": "ningún juego detenido",
        "decide": "decide con", "alarms": "alarmas desde el arranque del controlador",
        "no_alarms": "ninguna alarma", "sensors": "sensores y puertos",
        "no_faults": "ninguna falla de sensor desde el arranque",
        "faults": "{name}: {count} fallas, la última: {message}",
        "port_up": "puerto {port}: conectado", "port_down": "puerto {port}: desconectado "
                   "({detail})", "status": "estado del controlador",
        "stats": "estadísticas de vigilancia", "stats_none": "(esta mesa no tiene estadísticas)",
        "rules": "reglamento del juego", "pit": "pit", "table": "mesa",
        "rules_note": "Resumen del reglamento (en inglés); el texto original en español "
                      "rige.", "game": "juego", "result": "resultado",
        "connection": "sin conexión con el servidor de la pantalla: reintentando",
    },
    "en": {
        "limits": "table limits", "min": "minimum", "max": "maximum", "chips": "chips",
        "pending": "change announced: {min_bet}-{max_bet} chips, {when}",
        "no_daemon": "the table's controller is not running: this is the last it "
                     "journaled", "daemon_running": "controller running, pid {pid}",
        "daemon_stopped": "controller stopped ({why})",
        "waiting": "waiting for the table's journal: {problem}",
        "held": "games held for the inspector", "none_held": "no game held",
        "decide": "decide with", "alarms": "alarms since the controller started",
        "no_alarms": "no alarm", "sensors": "sensors and ports",
        "no_faults": "no sensor fault since start",
        "faults": "{name}: {count} faults, the last: {message}",
        "port_up": "port {port}: connected", "port_down": "port {port}: down ({detail})",
        "status": "controller status", "stats": "surveillance statistics",
        "stats_none": "(this table has no statistics)", "rules": "rules of the game",
        "pit": "pit", "table": "table",
        "rules_note": "Digest of the regulation; the Spanish original prevails.",
        "game": "game", "result": "result",
        "connection": "no connection to the display's server: retrying",
    },
}
