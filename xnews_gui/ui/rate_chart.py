"""A small live chart: pages/s and articles stored over time, painted with QPainter."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

PAGES_COLOR = QColor("#1f77b4")
ARTICLES_COLOR = QColor("#2ca02c")


class RateChart(QWidget):
    def __init__(self, parent=None, capacity: int = 180):
        super().__init__(parent)
        self.samples: deque[tuple[float, float]] = deque(maxlen=capacity)  # (pages/s, articles)
        self.capacity = capacity
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setToolTip("Pages per second (left axis) and articles stored (right axis), one point per second")

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(480, 150)

    def add(self, pages_per_s: float, articles: float) -> None:
        self.samples.append((max(0.0, pages_per_s), max(0.0, articles)))
        self.update()

    def clear(self) -> None:
        self.samples.clear()
        self.update()

    def axis_labels(self, max_rate: float | None = None, max_art: float | None = None) -> tuple[list[str], list[str]]:
        """The left (pages/s) and right (articles) axis labels, top to bottom."""
        if max_rate is None:
            max_rate = _nice(max([s[0] for s in self.samples] + [1.0]))
        if max_art is None:
            max_art = _nice(max([s[1] for s in self.samples] + [10.0]))
        fractions = [1 - i / 4 for i in range(5)]
        return [_fmt(max_rate * f) for f in fractions], [_fmt(max_art * f) for f in fractions]

    def paintEvent(self, _event) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        p.setFont(font)
        fm = p.fontMetrics()
        max_rate = _nice(max([s[0] for s in self.samples] + [1.0]))
        max_art = _nice(max([s[1] for s in self.samples] + [10.0]))
        rate_labels, art_labels = self.axis_labels(max_rate, max_art)
        # each axis as wide as its widest label: "3,750" or "12.5k" is never cut
        left = max(fm.horizontalAdvance(t) for t in rate_labels) + 10
        right = max(fm.horizontalAdvance(t) for t in art_labels) + 10
        top, bottom = fm.height() + 8, fm.height() + 6
        plot = QRectF(left, top, max(10, self.width() - left - right), max(10, self.height() - top - bottom))
        text = pal.color(QPalette.ColorRole.Text)
        grid = QColor(text)
        grid.setAlpha(40)

        p.setPen(QPen(grid, 1))
        for i in range(5):
            y = plot.top() + plot.height() * i / 4
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        p.setPen(text)
        for i in range(5):
            y = plot.top() + plot.height() * i / 4
            p.setPen(PAGES_COLOR)
            p.drawText(QRectF(0, y - fm.height() / 2, left - 5, fm.height()),
                       Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, rate_labels[i])
            p.setPen(ARTICLES_COLOR)
            p.drawText(QRectF(plot.right() + 5, y - fm.height() / 2, right - 5, fm.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, art_labels[i])

        # legend
        x = plot.left()
        for label, color in (("pages/s", PAGES_COLOR), ("articles", ARTICLES_COLOR)):
            p.fillRect(QRectF(x, 4 + fm.height() / 2 - 2, 14, 4), color)
            p.setPen(text)
            p.drawText(QPointF(x + 18, 4 + fm.ascent()), label)
            x += 18 + fm.horizontalAdvance(label) + 16
        p.setPen(grid.darker(150) if pal.color(QPalette.ColorRole.Base).lightness() > 128 else grid.lighter(150))
        span = f"last {self.capacity // 60} min" if self.capacity >= 120 else f"last {self.capacity} s"
        p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), fm.height()),
                   Qt.AlignmentFlag.AlignRight, span)

        if len(self.samples) >= 2:
            step = plot.width() / (self.capacity - 1)
            x0 = plot.right() - step * (len(self.samples) - 1)
            for idx, top_value, color in ((1, max_art, ARTICLES_COLOR), (0, max_rate, PAGES_COLOR)):
                path = QPainterPath()
                for i, sample in enumerate(self.samples):
                    pt = QPointF(x0 + i * step, plot.bottom() - plot.height() * sample[idx] / top_value)
                    path.moveTo(pt) if i == 0 else path.lineTo(pt)
                p.setPen(QPen(color, 2))
                p.drawPath(path)
        elif not self.samples:
            p.setPen(grid.darker(200))
            p.drawText(plot, Qt.AlignmentFlag.AlignCenter, "No crawl running")
        p.end()


def _nice(value: float) -> float:
    """The next 'round' number at or above value: 1, 2, 5, 10, 20, 50..."""
    magnitude = 1.0
    while magnitude * 10 <= value:
        magnitude *= 10
    while magnitude > value * 10:
        magnitude /= 10
    for m in (1, 2, 5, 10):
        if m * magnitude >= value:
            return m * magnitude
    return value


def _fmt(value: float) -> str:
    """An axis label: '0.75', '3,750', '12.5k', '2.5M' (never '3.75e+03')."""
    if value >= 1_000_000:
        return f"{value / 1_000_000:.3g}M"
    if value >= 10_000:
        return f"{value / 1000:.3g}k"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"
