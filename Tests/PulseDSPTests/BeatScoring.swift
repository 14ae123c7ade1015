import EvaluationSet

/// score.py's matching lives once, in EvaluationSet (the evaluation set scores with it too); this name keeps it
/// in scope for every file of this target.
typealias BeatScoring = EvaluationSet.BeatScoring
