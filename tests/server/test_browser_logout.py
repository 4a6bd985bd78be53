"""Log out in Chromium forgets the browser's seat tokens, a chouette's too (issue 42 item 5)."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from .test_browser import Server, browser, new_page


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The site, answering before its engine is warm: nobody here plays the computer."""
    srv = Server(tmp_path_factory.mktemp("bgdata"), engine=False)
    srv.start()
    yield srv
    srv.kill()


def test_log_out_forgets_table_and_chouette_seat_tokens(browser, server):
    page = new_page(browser, server)
    page.reload()
    page.fill("#form-login [name=username]", "yvonne")
    page.fill("#form-login [name=password]", "pw-123456")
    page.click("#btn-register")
    page.wait_for_selector("#account-info:not([hidden])")
    page.evaluate(
        "() => { localStorage.setItem('bg.seat.abc123', JSON.stringify({token: 't', seat: 'white'}));"
        " localStorage.setItem('bg.chouette.Xy-9_z', 't2'); localStorage.setItem('bg.chouette.lang', 'ja'); }"
    )
    page.click("#btn-logout")
    page.wait_for_selector("#account-info", state="hidden")
    left = page.evaluate("() => Object.keys(localStorage).filter((k) => k.startsWith('bg.')).sort()")
    assert "bg.seat.abc123" not in left and "bg.chouette.Xy-9_z" not in left, left
    assert "bg.chouette.lang" in left and "bg.settings" in left, left  # not seat tokens: kept
    assert page.errors == []  # type: ignore[attr-defined]
