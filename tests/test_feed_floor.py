"""The floor (issue 18): every table's journal reaches PostgreSQL over a real Mosquitto,
whole and in order, whatever the broker, the feed and the database do meanwhile; no
face-down card is in any message before its turn; bad credentials are one line.

Real parts (tests/floor_parts.py): Debian's mosquitto with a password file and TLS from a
test CA, a PostgreSQL cluster in a scratch folder. Expected values come from the journals
themselves, read here with sqlite3, never from the feed's or the floor's code.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from floor_parts import (
    BIN,
    FLOOR_PASSWORD,
    FLOOR_USER,
    PASSWORD,
    USER,
    Broker,
    Postgres,
    finished,
    floor_config,
    journal_head,
    missing_parts,
    postgres,
    replay,
    secret,
    simulate_journal,
    spawn,
    stop_all,
    table_config,
    wait_for,
)
from processes import stopped

from controller.store.chain import HASH_HEX

pytestmark = pytest.mark.skipif(missing_parts() is not None, reason=str(missing_parts()))
GENESIS = "0" * 64
HIDDEN = "??"
# The games that start a game and close bets (CONTRACT §2 records); a card game journals
# bets_closed when the deal begins.
GAME_START = {"roulette": "spin_start", "mini_baccarat": "coup_start",
              "blackjack_plus": "coup_start"}


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("traces")
    return {"roulette": simulate_journal(folder, "roulette", 8),
            "mini_baccarat": simulate_journal(folder, "mini_baccarat", 200),
            "blackjack_plus": simulate_journal(folder, "blackjack_plus", 20)}


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


def journal_rows(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    with sqlite3.connect(path) as db:
        return [(seq, h, json.loads(body)) for seq, h, body in
                db.execute(f"SELECT seq, {HASH_HEX}, body FROM records ORDER BY seq")]


def floor_rows(dsn: str, table: str) -> list[tuple[int, str, str, dict[str, Any]]]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT seq, hash, prev, body FROM records WHERE table_name = %s "
                            "ORDER BY seq", (table,)).fetchall()


def stored(dsn: str, table: str) -> int:
    import psycopg

    try:
        with psycopg.connect(dsn, connect_timeout=2) as conn:
            return int(conn.execute("SELECT count(*) FROM records WHERE table_name = %s",
                                    (table,)).fetchone()[0])
    except psycopg.Error:
        return -1


def feed_config(tmp_path: Path, broker: Broker, name: str, game: str, journal: Path,
                extra: str = "", url: str | None = None) -> Path:
    password = secret(tmp_path, f"{name}.password", PASSWORD)
    return table_config(tmp_path, name, game, journal, url or broker.url,
                        f'username = "{USER}"\npassword_file = "{password}"\n{extra}')


def publish(broker: Broker, topic: str, payload: bytes) -> None:
    """One message, QoS 1, from a client of the test's own."""
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    client.username_pw_set(FLOOR_USER, FLOOR_PASSWORD)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    client.publish(topic, payload, qos=1).wait_for_publish(5)
    client.disconnect()
    client.loop_stop()


def floor_subscribed(dsn: str, broker: Broker) -> None:
    """Wait until the floor stores a status published now: it is subscribed."""
    import paho.mqtt.client as paho
    import psycopg
    from paho.mqtt.enums import CallbackAPIVersion

    client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    client.username_pw_set(FLOOR_USER, FLOOR_PASSWORD)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()

    def seen() -> bool:
        client.publish("casino/test-site/probe/status", b'{"online": true}', qos=1)
        try:
            with psycopg.connect(dsn, connect_timeout=2) as conn:
                return bool(conn.execute("SELECT 1 FROM statuses WHERE table_name = 'probe'")
                            .fetchone())
        except psycopg.Error:
            return False

    wait_for("the floor to subscribe", seen, 60, every=0.2)
    client.disconnect()
    client.loop_stop()


class Watcher:
    """A subscriber of its own that keeps every record message, as the public's eye."""

    def __init__(self, broker: Broker) -> None:
        import paho.mqtt.client as paho
        from paho.mqtt.enums import CallbackAPIVersion

        self.messages: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id="watcher",
                                  protocol=paho.MQTTv5)
        self.client.username_pw_set(FLOOR_USER, FLOOR_PASSWORD)
        self.client.on_message = self._got
        self.client.on_connect = lambda c, *a: c.subscribe("casino/test-site/+/records", 1)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def _got(self, client: Any, userdata: Any, msg: Any) -> None:
        with self._lock:
            self.messages.append(json.loads(msg.payload))

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def assert_public(game: str, payloads: list[dict[str, Any]],
                  journal: list[tuple[int, str, dict[str, Any]]]) -> None:
    """No face-down card before its turn in ``payloads`` (records as published or
    stored: ``seq``, ``type``, fields): seed 000 Art. 6, seed 002 Art. 8. A card dealt
    face down shows "??"; from bets closing to the next game's start the shoe's raw
    bytes show "??" (they may carry one); a checkpoint shows how many cards its shoe
    counted, never which (seed 003 num. 7: some were never shown)."""
    by_seq = {p["seq"]: p for p in payloads}
    dealing = False
    checked = 0
    for seq, _, record in journal:
        kind = record["type"]
        if kind == "bets_closed":
            dealing = True
        elif kind == GAME_START[game]:
            dealing = False
        shown = by_seq.get(seq)
        if shown is None:
            continue
        fields = shown.get("fields", shown)
        if kind == "card" and record.get("face_down"):
            assert fields["card"] == HIDDEN, f"#{seq}: face-down {record['card']} published"
            checked += 1
        elif kind == "serial" and dealing:
            assert fields["text"] == HIDDEN, f"#{seq}: shoe bytes published while dealing"
        elif kind == "card_turned":
            assert fields["card"] == record["card"]  # its turn: shown
        elif kind == "checkpoint" and "shoe" in record["state"]:
            # The cards the shoe counted include some never shown: how many, not which.
            counts = record["state"]["shoe"]["counts"]
            assert fields["state"]["shoe"] == {**record["state"]["shoe"],
                                               "counts": {HIDDEN: sum(counts.values())}}
        else:
            assert {k: v for k, v in fields.items() if k not in ("seq", "type", "t")} == {
                k: v for k, v in record.items() if k not in ("seq", "type", "t")}
    if game != "roulette":
        assert checked > 0, "the journal dealt no face-down card: the check checked nothing"


def assert_floor_equals_journal(dsn: str, table: str, game: str, journal: Path) -> None:
    mine = journal_rows(journal)
    rows = floor_rows(dsn, table)
    assert [r[0] for r in rows] == [m[0] for m in mine], f"{table}: not every record"
    prev = GENESIS
    for (seq, hash_, prev_got, _), (_, mine_hash, _) in zip(rows, mine, strict=True):
        assert (hash_, prev_got) == (mine_hash, prev), f"{table} #{seq}: chain differs"
        prev = hash_
    assert_public(game, [r[3] for r in rows], mine)


def no_alarms(dsn: str) -> list[Any]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT kind, message FROM alarms WHERE resolved_at IS NULL"
                            ).fetchall()


def test_every_journal_reaches_the_floor_whole_through_outages(
        tmp_path: Path, pg: Postgres, broker: Broker, traces: dict[str, Path]) -> None:
    """Three tables replayed live; meanwhile the busy table's feed is killed and restarted,
    the broker stopped and restarted, PostgreSQL stopped for a while: the floor ends equal
    to every journal (every record once, in order, chains intact), no alarm open."""
    dsn = pg.new_database("outages")
    floor = spawn("table-floor", "--config", str(floor_config(tmp_path, broker, dsn)), "run",
                  log=tmp_path / "floor.log")
    feeds: dict[str, subprocess.Popen[bytes]] = {}
    try:
        floor_subscribed(dsn, broker)
        watcher = Watcher(broker)
        configs, journals = {}, {}
        for game in traces:
            journals[game] = tmp_path / f"{game}.sqlite"
            configs[game] = feed_config(tmp_path, broker, f"t-{game}", game, journals[game])
            feeds[game] = spawn("table-feed", "--config", str(configs[game]),
                                log=tmp_path / f"feed-{game}.log")
        replays = [replay(traces[game], journals[game]) for game in traces]
        busy, busy_table = "mini_baccarat", "t-mini_baccarat"

        def moving() -> tuple[int, ...]:  # what moves while all goes well, however slowly
            return (*(stored(dsn, f"t-{g}") for g in traces),
                    *(journal_head(journals[g]) for g in traces))

        cursor = Path(f"{journals[busy]}.feed-cursor")
        wait_for("a first part stored", lambda: stored(dsn, busy_table) >= 1000
                 and cursor.exists(), progress=moving)
        feeds[busy].kill()  # SIGKILL: no goodbye, the cursor as last saved
        feeds[busy].wait()
        resume = json.loads(cursor.read_text())["seq"]
        busy_log = tmp_path / f"feed-{busy}-2.log"
        feeds[busy] = spawn("table-feed", "--config", str(configs[busy]), log=busy_log)
        wait_for("more stored", lambda: stored(dsn, busy_table) >= 2500, progress=moving)
        assert f"from seq {resume + 1}" in named(busy_log, "feed_start")[0]
        broker.stop()
        wait_for("the feed to miss the broker", lambda: named(busy_log, "broker_away"), 60)
        broker.start()
        wait_for("more after the broker's return", lambda: stored(dsn, busy_table) >= 4000,
                 progress=moving)
        pg.stop()
        floor_log = tmp_path / "floor.log"
        wait_for("the floor to miss PostgreSQL", lambda: named(floor_log, "database_down") or
                 publish(broker, "casino/test-site/probe/status", b'{"online": true}'),
                 60, every=0.3)
        pg.start()
        for game, r in zip(traces, replays, strict=True):
            assert finished(r, f"the replay of {game}", moving) == 0
        for game in traces:
            total = len(journal_rows(journals[game]))
            wait_for(f"all {total} records of {game}",
                     lambda g=game, n=total: stored(dsn, f"t-{g}") == n, 60, progress=moving)
        for game in traces:
            assert_floor_equals_journal(dsn, f"t-{game}", game, journals[game])
        assert no_alarms(dsn) == []
        watcher.stop()
        for game in traces:
            assert_public(game, [m for m in watcher.messages if m["table"] == f"t-{game}"],
                          journal_rows(journals[game]))
        verified = subprocess.run(
            [str(BIN / "table-floor"), "--config", str(tmp_path / "floor.toml"), "verify",
             busy_table, "--journal", str(journals[busy])], capture_output=True, text=True)
        assert verified.returncode == 0, verified.stdout
        assert "equal" in verified.stdout
        assert fits_80(verified.stdout), verified.stdout
    finally:
        stop_all([*feeds.values(), floor])
    log = tmp_path / "floor.log"
    assert len(named(log, "database_down")) == 1, events(log)  # one line, not one a retry
    assert named(log, "database_back")
    assert len(named(log, "broker_away")) == 1
    for game in traces:
        assert "Traceback" not in (tmp_path / f"feed-{game}.log").read_text()


def test_status_shows_each_table_live_and_verify_finds_a_difference(
        tmp_path: Path, pg: Postgres, broker: Broker, traces: dict[str, Path]) -> None:
    dsn = pg.new_database("status")
    floor_toml = floor_config(tmp_path, broker, dsn)
    floor = spawn("table-floor", "--config", str(floor_toml), "run",
                  log=tmp_path / "floor.log")
    journal = tmp_path / "r.sqlite"
    assert finished(replay(traces["roulette"], journal), "the replay",
                    lambda: journal_head(journal)) == 0
    total = len(journal_rows(journal))
    try:
        floor_subscribed(dsn, broker)
        config = feed_config(tmp_path, broker, "wheel-1", "roulette", journal)
        done = subprocess.run([str(BIN / "table-feed"), "--config", str(config), "--once"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        wait_for("all stored", lambda: stored(dsn, "wheel-1") == total)

        def status() -> str:
            return subprocess.run([str(BIN / "table-floor"), "--config", str(floor_toml),
                                   "status"], capture_output=True, text=True).stdout

        text = wait_for("the status with no lag", lambda: (s := status()) and
                        "0 records behind" in s and s)
        assert "table wheel-1 (roulette)" in text
        assert f"chain whole up to #{total}" in " ".join(text.split())
        assert max(map(len, text.splitlines())) <= 80, text  # an 80-column terminal
        last = [r for _, _, r in journal_rows(journal) if r["type"] == "spin_result"][-1]
        assert f"spin {last['spin']}" in text
        # A record changed on the floor (not in the journal): verify names it, exit 1.
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("UPDATE records SET body = jsonb_set(body, '{t}', '0') "
                         "WHERE table_name = 'wheel-1' AND seq = 5")
        verified = subprocess.run(
            [str(BIN / "table-floor"), "--config", str(floor_toml), "verify", "wheel-1",
             "--journal", str(journal)], capture_output=True, text=True)
        assert verified.returncode == 1
        assert "#5: the floor's body differs" in verified.stdout
        assert fits_80(verified.stdout), verified.stdout
        # A copy of the journal altered in place (a hole card's face would not show in
        # the public bodies): its chain is recomputed, the record named.
        import shutil

        copy = tmp_path / "altered.sqlite"
        shutil.copyfile(journal, copy)
        con = sqlite3.connect(copy)
        con.execute("UPDATE records SET body = replace(body, '\"t\":', '\"t\": ') "
                    "WHERE seq = 7")
        con.commit()
        con.close()
        verified = subprocess.run(
            [str(BIN / "table-floor"), "--config", str(floor_toml), "verify", "wheel-1",
             "--journal", str(copy)], capture_output=True, text=True)
        assert verified.returncode == 1
        assert "#7: the journal's record is not what its hash covers" in verified.stdout
        # The cursor is the journal's last record: a second run sends nothing new.
        cursor = json.loads(Path(f"{journal}.feed-cursor").read_text())
        assert cursor["seq"] == total
        assert cursor["hash"] == journal_rows(journal)[-1][1]
    finally:
        stopped(floor, timeout=20)


def fits_80(out: str) -> bool:
    """Every line of ``out`` fits an 80-column terminal, but the one naming the journal (a
    path stays whole)."""
    return all(len(line) <= 80 for line in out.splitlines()
               if not line.startswith("  journal /"))


def run_feed(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "table-feed"), "--config", str(config), "--once", *args],
                          capture_output=True, text=True, timeout=60)


def events(log: Path) -> list[dict[str, Any]]:
    """The JSON log lines of a process started with ``--log-format json``."""
    text = log.read_text()
    assert "Traceback" not in text
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def named(log: Path, event: str) -> list[str]:
    return [e["message"] for e in events(log) if e["event"] == event]


def one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert "Traceback" not in text
    return lines[-1] if lines else ""


def test_a_wrong_password_is_one_line(tmp_path: Path, broker: Broker) -> None:
    journal = tmp_path / "j.sqlite"
    password = secret(tmp_path, "wrong.password", "not-the-password")
    config = table_config(tmp_path, "t1", "roulette", journal, broker.url,
                          f'username = "{USER}"\npassword_file = "{password}"\n')
    done = run_feed(config)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert line.startswith("table-feed: broker mqtt://127.0.0.1:")
    assert f"as {USER}: login refused (not authorized)" in line
    assert done.stderr.count("login refused") == 1


def test_a_wrong_ca_is_one_line(tmp_path: Path, broker: Broker) -> None:
    journal = tmp_path / "j.sqlite"
    extra = f'ca_file = "{broker.wrong_ca[0]}"\n'
    config = feed_config(tmp_path, broker, "t1", "roulette", journal, extra, broker.tls_url)
    done = run_feed(config)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert f"its certificate is not trusted by ca_file {broker.wrong_ca[0]}" in line
    assert done.stderr.count("not trusted") == 1


def test_tls_with_a_password_or_a_client_certificate_publishes(
        tmp_path: Path, broker: Broker, traces: dict[str, Path]) -> None:
    journal = tmp_path / "j.sqlite"
    assert finished(replay(traces["roulette"], journal), "the replay",
                    lambda: journal_head(journal)) == 0
    watcher = Watcher(broker)
    config = feed_config(tmp_path, broker, "t1", "roulette", journal,
                         f'ca_file = "{broker.ca[0]}"\n', broker.tls_url)
    assert run_feed(config).returncode == 0
    cert, key = broker.client_cert
    by_cert = table_config(tmp_path, "t2", "roulette", journal,
                           f"mqtts://127.0.0.1:{broker.cert_port}",
                           f'ca_file = "{broker.ca[0]}"\nclient_cert = "{cert}"\n'
                           f'client_key = "{key}"\ncursor = "{tmp_path}/t2.cursor"\n')
    done = run_feed(by_cert)
    assert done.returncode == 0, done.stderr
    total = len(journal_rows(journal))
    wait_for("both tables' records", lambda: {m["table"] for m in watcher.messages
                                               if m["seq"] == total} == {"t1", "t2"})
    watcher.stop()


def test_a_password_file_others_can_read_is_refused(tmp_path: Path, broker: Broker) -> None:
    config = feed_config(tmp_path, broker, "t1", "roulette", tmp_path / "j.sqlite")
    (tmp_path / "t1.password").chmod(0o644)
    done = run_feed(config)
    assert done.returncode == 2
    assert "is readable by others" in one_line(done.stderr)
    assert "field 'feed.password_file'" in done.stderr


def test_a_broker_away_at_the_start_is_waited_for(
        tmp_path: Path, broker: Broker, traces: dict[str, Path]) -> None:
    journal = tmp_path / "j.sqlite"
    assert finished(replay(traces["roulette"], journal), "the replay",
                    lambda: journal_head(journal)) == 0
    broker.stop()
    config = feed_config(tmp_path, broker, "t1", "roulette", journal)
    feed = spawn("table-feed", "--config", str(config), "--once", log=tmp_path / "feed.log")
    log = tmp_path / "feed.log"
    wait_for("the feed to say the broker is away", lambda: named(log, "broker_away"))
    broker.start()
    assert stopped(feed, None)[0] == 0  # it ends by itself (--once)
    away = named(log, "broker_away")
    assert len(away) == 1 and "is unreachable" in away[0]
    assert named(log, "broker_back")
    cursor = json.loads(Path(f"{journal}.feed-cursor").read_text())
    assert cursor["seq"] == len(journal_rows(journal))


def test_the_floor_drops_what_is_not_a_record_with_one_line(
        tmp_path: Path, pg: Postgres, broker: Broker) -> None:
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    dsn = pg.new_database("bad_messages")
    floor = spawn("table-floor", "--config", str(floor_config(
        tmp_path, broker, dsn, 'tables = ["probe", "good"]\n')), "run",
        log=tmp_path / "floor.log")
    try:
        floor_subscribed(dsn, broker)
        client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
        client.username_pw_set(FLOOR_USER, FLOOR_PASSWORD)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        record = {"table": "good", "seq": 1, "type": "alarm", "t": 1.0, "hash": "a" * 64,
                  "prev": GENESIS, "fields": {"code": "x"}, "masked": False}
        for topic, body in (("casino/test-site/good/records", b"not json"),
                            ("casino/test-site/good/records", b'{"seq": 1}'),
                            ("casino/test-site/stranger/records", json.dumps(
                                {**record, "table": "stranger"}).encode()),
                            ("casino/test-site/good/records", json.dumps(record).encode())):
            client.publish(topic, body, qos=1).wait_for_publish(5)
        wait_for("the good record", lambda: stored(dsn, "good") == 1)
        client.disconnect()
        client.loop_stop()
    finally:
        stopped(floor, timeout=20)
    assert stored(dsn, "stranger") == 0
    log = tmp_path / "floor.log"
    dropped = named(log, "not_a_record")
    assert len(dropped) == 2
    assert "a message that is not a record (not JSON)" in dropped[0]
    assert "(no type of the right kind)" in dropped[1]
    stranger = named(log, "unconfigured_table")
    assert len(stranger) == 1 and "table stranger is not on the floor" in stranger[0]


def test_a_damaged_or_forged_record_is_sent_as_unreadable_and_the_feed_goes_on(
        tmp_path: Path, broker: Broker, traces: dict[str, Path]) -> None:
    import sqlite3

    journal = tmp_path / "j.sqlite"
    assert finished(replay(traces["roulette"], journal), "the replay",
                    lambda: journal_head(journal)) == 0
    total = len(journal_rows(journal))
    db = sqlite3.connect(journal)
    with db:  # a body that is not JSON, and one forged with no seq of its own
        db.execute("UPDATE records SET body = '{not json' WHERE seq = 4")
        db.execute("UPDATE records SET body = '{\"type\": \"spin_result\"}' WHERE seq = 6")
    db.close()
    watcher = Watcher(broker)
    done = run_feed(feed_config(tmp_path, broker, "t1", "roulette", journal))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    wait_for("every record", lambda: any(m["seq"] == total for m in watcher.messages))
    watcher.stop()
    by_seq = {m["seq"]: m for m in watcher.messages}
    assert sorted(by_seq) == list(range(1, total + 1))  # the chain's places, every one
    for seq in (4, 6):
        assert by_seq[seq]["type"] == "unreadable_record"
        assert by_seq[seq]["fields"]["why"].startswith(f"record {seq} cannot be read")
    assert by_seq[5]["prev"] == by_seq[4]["hash"]


def test_a_database_that_refuses_the_floor_acknowledges_nothing(
        tmp_path: Path, pg: Postgres, broker: Broker) -> None:
    # Issue 18 item 4: "nothing acknowledged before it is stored". A role that loses its
    # rights on the records (a grant undone, a wrong role) is the database refusing, not
    # a bad record: one line, retried, and stored once the rights are back. A status
    # that is a JSON list (of pairs, which would make a dict) is dropped with one line,
    # and the floor goes on.
    import psycopg

    admin = pg.new_database("refusing")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS floor_writer")
        conn.execute("CREATE ROLE floor_writer LOGIN")
        conn.execute('GRANT ALL ON DATABASE "refusing" TO floor_writer')
        conn.execute("GRANT ALL ON SCHEMA public TO floor_writer")
    dsn = admin.replace("user=postgres", "user=floor_writer")
    floor = spawn("table-floor", "--config", str(floor_config(
        tmp_path, broker, dsn, 'tables = ["probe", "good"]\n')), "run",
        log=tmp_path / "floor.log")
    try:
        floor_subscribed(dsn, broker)
        publish(broker, "casino/test-site/good/status", b'[["online", true]]')
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("ALTER TABLE records OWNER TO postgres")
        record = {"table": "good", "seq": 1, "type": "alarm", "t": 1.0, "hash": "a" * 64,
                  "prev": GENESIS, "fields": {"code": "x"}, "masked": False}
        publish(broker, "casino/test-site/good/records", json.dumps(record).encode())
        log = tmp_path / "floor.log"
        wait_for("the refusal's line", lambda: named(log, "database_down"))
        assert stored(admin, "good") == 0
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("GRANT ALL ON records TO floor_writer")
        wait_for("the record, stored once the rights are back",
                 lambda: stored(admin, "good") == 1, 90)
        assert floor.poll() is None  # the list status did not stop it
    finally:
        stopped(floor, timeout=20)
    assert not named(log, "not_storable")
    (down,) = named(log, "database_down")
    assert "permission denied" in down and "nothing acknowledged" in down
    (status,) = named(log, "not_a_status")
    assert "casino/test-site/good/status: not a JSON status: dropped" in status


def test_a_record_sent_again_otherwise_is_a_conflict_alarm(pg: Postgres) -> None:
    # The breaker's finding: a forged record of a stored seq, or two tables given one
    # name, were dropped without a word (ON CONFLICT DO NOTHING). The first stored stays;
    # each contradiction is an open alarm; the same record again is none.
    from feed.floor_db import Record, Store, connect, load_chains

    def rec(seq: int, prev: str, code: str, hash_: str | None = None) -> Record:
        message = {"table": "twin", "seq": seq, "type": "alarm", "t": 1.0,
                   "hash": hash_ or f"{seq:064x}", "prev": prev,
                   "fields": {"code": code}, "masked": False}
        return Record("test-site", "twin", seq, "alarm", 1.0, message["hash"], prev, False,
                      json.dumps(message).encode())

    conn = connect(pg.new_database("conflicts"))
    try:
        store = Store(conn, load_chains(conn))
        first = [rec(1, GENESIS, "x"), rec(2, f"{1:064x}", "y")]
        assert store.store(first) == []
        assert store.store(first) == []  # sent again after a reconnect: harmless
        alarms = store.store([rec(1, GENESIS, "FORGED"), rec(2, f"{1:064x}", "y", "f" * 64)])
        assert alarms == [
            "table twin (test-site): record 1 came again with another body: the first "
            "stored is kept (two tables with one name, or a forgery?)",
            "table twin (test-site): record 2 came again with another hash: the first "
            "stored is kept (two tables with one name, or a forgery?)"]
        rows = conn.execute("SELECT kind, first_seq FROM alarms WHERE resolved_at IS NULL "
                            "ORDER BY id").fetchall()
        assert rows == [("conflict", 1), ("conflict", 2)]
        (code,) = conn.execute("SELECT body->>'code' FROM records WHERE seq = 1").fetchone()
        assert code == "x"
        # status says the chain is not whole, and a table without a state says so.
        import contextlib
        import io

        from feed.config import FloorConfig
        from feed.floor_report import status

        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status(conn, FloorConfig("floor.toml", None, "test-site", "",  # type: ignore
                                     ("twin",)), as_json=False)
        text = " ".join(out.getvalue().split())
        assert "2 records stored, linked up to #2 (not whole: see its alarms)" in text
        assert "alarms 2 open" in text
    finally:
        conn.close()


def test_a_gap_filled_in_pieces_is_one_open_alarm(pg: Postgres) -> None:
    # The breaker's finding: a gap filled a piece at a time left an open alarm a piece
    # (5 rows for one gap). One row stays open, its first seq moving, until it closes.
    from feed.floor_db import Record, Store, connect, load_chains

    def rec(seq: int) -> Record:
        prev = f"{seq - 1:064x}" if seq > 1 else GENESIS
        message = {"table": "holey", "seq": seq, "type": "alarm", "t": 1.0,
                   "hash": f"{seq:064x}", "prev": prev, "fields": {"code": "x"},
                   "masked": False}
        return Record("test-site", "holey", seq, "alarm", 1.0, f"{seq:064x}", prev, False,
                      json.dumps(message).encode())

    conn = connect(pg.new_database("pieces"))

    def open_gaps() -> list[tuple[int, int]]:
        return conn.execute("SELECT first_seq, last_seq FROM alarms WHERE kind = 'gap' "
                            "AND resolved_at IS NULL").fetchall()

    try:
        store = Store(conn, load_chains(conn))
        assert len(store.store([rec(1), rec(20)])) == 1
        assert open_gaps() == [(2, 19)]
        for piece in ([2, 3, 4], [5, 6], [7, 8, 9, 10]):
            assert store.store([rec(s) for s in piece]) == []
            assert open_gaps() == [(piece[-1] + 1, 19)]
        assert store.store([rec(s) for s in range(11, 20)]) == []
        assert open_gaps() == []
        assert store.chains[("test-site", "holey")].head_seq == 20
    finally:
        conn.close()
