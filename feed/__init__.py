"""The floor's link: ``table-feed`` publishes a table's journal over MQTT and
``table-floor`` keeps every table's records in PostgreSQL (issue 18). Processes of their
own: the controller imports nothing from here."""
