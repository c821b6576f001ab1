"""The solution viewer in a real browser: headless Chromium clicks through every turn of a line.

Chromium and its driver come from the system packages (``.ci/run`` installs them); selenium drives
them.  After each click the board the page shows is read cell by cell and compared with the
position the reference engine reached after that turn.
"""

import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from fci_solver.cli import main
from fci_solver.html import solution_html
from fci_solver.notation import line_to_human
from fci_solver.position import Deal
from fci_solver.search import solve

from helpers import CARDS

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser():
    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1000,1200"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


def shown(driver) -> dict:
    """cell -> (card, height) of every stack the page draws."""
    out = {}
    for d in driver.find_elements(By.CSS_SELECTOR, "[data-card]"):
        r, c = (int(x) for x in d.get_attribute("data-cell").split(","))
        out[(r, c)] = (int(d.get_attribute("data-card")), int(d.get_attribute("data-height")))
    return out


def expected(pos) -> dict:
    return {s.cell: (s.card, s.height) for s in pos.stacks}


def test_clicking_through_a_solution_shows_every_board_of_the_line(browser, tmp_path):
    pos = Deal.random("standard", 5).position(2, True, True)  # both sea animals: Whale and Shark arrows too
    r = solve(pos, CARDS)
    page = tmp_path / "line.html"
    page.write_text(solution_html(pos, r.line, r.positions, line_to_human(pos, r.line, r.positions), CARDS, "test",
                                  narrow={2: "1 of 40"}))
    assert "http" not in page.read_text().replace("http://www.w3.org", "")  # nothing fetched from anywhere
    browser.get(page.as_uri())
    assert shown(browser) == expected(pos)
    nxt = browser.find_element(By.ID, "next")
    for i, (turn, after) in enumerate(zip(r.line, r.positions), 1):
        nxt.click()
        assert shown(browser) == expected(after), f"turn {i}"
        arrows = browser.find_elements(By.CSS_SELECTOR, "#arrows .arrow")
        assert len(arrows) == len(turn)
        status = browser.find_element(By.ID, "status").text
        assert status.startswith(f"{len(after)} stack")
        text = browser.find_element(By.ID, "turn")
        assert ("narrow" in text.get_attribute("class")) == (i == 2)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert shown(browser) == expected(r.positions[-2] if len(r.positions) > 1 else pos)
    legend = browser.find_element(By.ID, "legend").text
    assert all(CARDS[c].name in legend for c in range(16))
    shot = tmp_path / "viewer.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000


def test_solve_replay_and_generate_write_pages(browser, tmp_path):
    sol = tmp_path / "sol.html"
    with pytest.raises(SystemExit) as e:
        main(["solve", "--layout", "six", "--random", "--seed", "3", "--sea", "none", "-q", "--html", str(sol)])
    assert e.value.code == 0
    browser.get(sol.as_uri())
    assert browser.find_element(By.ID, "count").text.startswith("turn 0 of")
    with pytest.raises(SystemExit) as e:
        main(["generate", "-d", "8-", "-l", "six", "-n", "1", "--seed", "3", "-q", "--html", str(tmp_path / "p")])
    assert e.value.code == 0
    browser.get((tmp_path / "p" / "puzzle-1.html").as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, "[data-card]")
