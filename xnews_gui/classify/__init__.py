"""The MaxEnt topic classifier: training sets, training, evaluation, persistence.

Qt-free and store-free: it imports only ``xnews_gui.core``. The crawler calls
``TopicClassifier.predict(title + summary + body_text) -> (label, confidence)``.
"""

from .corpus import CorpusError, Doc, TrainingSet
from .metrics import Report
from .model import ModelError, TopicClassifier
from .training import TrainConfig, evaluate, train

MODEL_FILE = "topic.joblib"

__all__ = ["CorpusError", "Doc", "MODEL_FILE", "ModelError", "Report", "TopicClassifier", "TrainConfig",
           "TrainingSet", "evaluate", "train"]
