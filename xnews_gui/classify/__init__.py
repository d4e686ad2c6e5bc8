"""The MaxEnt topic classifier: training sets, training, evaluation, persistence.

Qt-free and store-free: it imports only ``xnews_gui.core``. The crawler calls
``TopicClassifier.predict_many(texts) -> [Prediction(label, confidence)]`` (label None, with
``.reason``, for out-of-domain text); models are data only (``model_file``).
"""

from .corpus import CorpusError, Doc, TrainingSet
from .metrics import Report
from .model import ModelError, Prediction, TopicClassifier
from .training import TrainConfig, evaluate, train

MODEL_FILE = "topic.npz"

__all__ = ["CorpusError", "Doc", "MODEL_FILE", "ModelError", "Prediction", "Report", "TopicClassifier", "TrainConfig",
           "TrainingSet", "evaluate", "train"]
