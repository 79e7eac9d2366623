"""Messages: the newest one shown in full, repeats replaced, a log of the last 50 (F2), errors on stderr."""

from __future__ import annotations

import pygame

from sim.view.draw.panels import INK, WARN, wrap
from sim.view.messages import LOG_SIZE, Messages
from tests.helpers import STEP, drag, key


def test_a_long_reason_is_wrapped_in_full_and_a_long_path_loses_its_middle_not_its_end():
    pygame.font.init()
    font = pygame.font.Font(None, 18)
    path = "/home/someone/" + "very-long-folder-name/" * 12 + "mytut.yaml"
    reason = f"could not load map: {path}:24: row 12 has 42 characters, expected 40 like the first row"
    lines = wrap(font, reason, 600)
    assert all(font.size(line)[0] <= 600 for line in lines) and len(lines) <= 3
    joined = " ".join(lines)
    assert joined.endswith("row 12 has 42 characters, expected 40 like the first row")
    assert "mytut.yaml:24:" in joined and "…" in joined  # the path's end stays, its middle goes


def test_a_message_replaces_the_one_shown_and_a_topic_replaces_itself_in_the_log():
    echoed = []
    m = Messages(errors=(WARN,), echo=echoed.append)
    for left in (6, 5, 4):
        m.post(f"undo: {left} more steps", INK)
    m.post("79 cows called to (20, 12): one distance field serves them all", INK)
    assert m.shown().text.startswith("79 cows called")
    called = "79 cows called to (20, 12): one distance field serves them all"
    assert [e.text for e in m] == ["undo: 4 more steps", called]
    for i in range(LOG_SIZE + 10):
        m.post(f"message {i}", INK)
    assert len(m) == LOG_SIZE and m[-1].text == f"message {LOG_SIZE + 9}"
    m.post("could not load map: x.yaml:3: bad", WARN)
    assert echoed == ["could not load map: x.yaml:3: bad"]  # errors only


def test_a_message_shows_for_its_seconds_on_the_messages_clock_and_waits_while_held():
    now = [100.0]
    m = Messages(errors=(WARN,), echo=lambda _line: None, clock=lambda: now[0])
    m.post("undo: 4 more steps", INK, seconds=6.0)
    assert m[-1].at == 100.0
    now[0] = 105.9
    assert m.shown() is not None and [x.text for x in m.recent()] == ["undo: 4 more steps"]
    m.hold(True)  # a modal went up with 0.1 s left: the message waits
    now[0] = 150.0
    m.hold(False)
    assert m.shown() is not None  # shown for the 0.1 s it had left
    now[0] = 150.2
    assert m.shown() is None and m.recent() == [] and len(m) == 1  # (gone from the screen, kept in the log)


def test_the_window_shows_the_newest_message_and_f2_opens_the_log_that_esc_closes(make_app, capsys):
    app = make_app()
    app.message("first")
    app.message("could not save the map: disk full", WARN)
    app.frame(1 / 60)
    assert app.messages.shown().text == "could not save the map: disk full"
    assert "astar-island: could not save the map: disk full" in capsys.readouterr().err
    app.message("could not load map: a\nb.yaml: not a map", WARN)  # (a file's name may hold a newline)
    assert capsys.readouterr().err == "astar-island: could not load map: a b.yaml: not a map\n"
    key(pygame.K_F2)
    app.frame(1 / 60)
    assert app.show_log
    key(pygame.K_ESCAPE)
    app.frame(1 / 60)
    assert not app.show_log and app.running  # Esc closed the log, nothing else


def test_loading_another_map_over_unsaved_painting_asks_and_ctrl_s_saves_it_first(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    drag(app, [(8, 12), (14, 12)])
    app.frame(STEP)
    name = app.sim.world.name
    key(pygame.K_n)
    app.frame(STEP)
    assert app.sim.world.name == name and type(app.top).__name__ == "ConfirmMode"
    key(pygame.K_x)  # any other key: no
    app.frame(STEP)
    assert app.top is app.play and app.sim.world.name == name
    key(pygame.K_n)
    key(pygame.K_s, pygame.KMOD_CTRL)  # save first, then go on
    app.frame(STEP)
    assert app.sim.world.name != name
    assert any(m[0].startswith("saved ") for m in app.messages)


def test_closing_the_window_asks_only_when_painting_is_unsaved(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    drag(app, [(8, 12), (14, 12)])
    app.frame(STEP)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    app.frame(STEP)
    assert app.running and type(app.top).__name__ == "ConfirmMode"
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert not app.running
    clean = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    clean.frame(STEP)
    assert not clean.running


def test_the_first_start_card_shows_once_lets_the_key_through_and_is_remembered(make_app, tmp_path):
    from sim.view.welcome import MARKER, Welcome

    card = Welcome()
    assert card.showing  # a fresh user folder (ASTAR_ISLAND_HOME is the test's own)
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    app.welcome = card
    app.frame(STEP)
    key(pygame.K_SPACE)
    app.frame(STEP)
    assert not card.showing and app.user_paused  # dismissed, and Space still paused
    assert Welcome().showing is False  # remembered in the user folder
    assert (tmp_path / "user" / MARKER).exists()


def test_a_quick_ctrl_click_inspects_even_when_ctrl_is_up_before_the_frame(make_app):
    """Ctrl down, click, ctrl up, all in one frame: the click sees ctrl as of itself."""
    app = make_app("maps/island.yaml", counts={"cow": 1, "bird": 0, "water": 0})
    app.cam.zoom_to(8)
    app.frame(STEP)
    key(pygame.K_SPACE)
    app.frame(STEP)
    before = app.sim.world.terrain.copy()
    sx, sy = app.cam.to_screen(*app.sim.agents.pos[0])
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_LCTRL, mod=pygame.KMOD_LCTRL, unicode=""))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(int(sx), int(sy)), button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(int(sx), int(sy)), button=1))
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_LCTRL, mod=0))
    app.frame(STEP)
    assert app.play.selected == 0 and (app.sim.world.terrain == before).all()  # inspected, nothing painted


def test_the_reach_of_a_click_grows_in_cells_as_the_zoom_shrinks(make_app):
    app = make_app("maps/archipelago.yaml", counts={"cow": 1, "bird": 0, "water": 0})
    play = app.play
    reach = {}
    for tile in (2, 8, 32):
        if tile >= app.cam.fit_tile():
            app.cam.zoom_to(tile)
            reach[tile] = play._reach_px() / app.cam.tile
    assert reach[8] > reach[32] and (2 not in reach or reach[2] > reach[8])
