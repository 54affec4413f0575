#include "culprit/stats/judge.hpp"

#include "culprit/stats/stored_looks.hpp"
#include "culprit/storage/records.hpp"

namespace culprit::stats {
namespace {

struct StoredSettings {
  JudgingSettings judging;
  int repetitions = 1;
  int max_repetitions = 1;
  bool adaptive = false;  // [stats] sampling = "adaptive": `culprit run` took the looks
};

StoredSettings read_settings(storage::Db& store, const StoredExperiment& experiment) {
  StoredSettings s;
  if (auto stored = storage::experiment_settings(store, experiment.id)) {
    s.judging.alpha = stored->alpha;
    s.judging.margin = stored->margin;
    s.judging.source = "as the experiment ran";
    s.repetitions = stored->repetitions;
    s.max_repetitions = stored->max_repetitions;
    s.adaptive = stored->sampling == "adaptive";
  } else {
    s.judging.source = experiment.manifest_text.empty()
                           ? "defaults: an imported experiment has no [stats]"
                           : "defaults: stored before culprit kept an experiment's settings "
                             "(pass --alpha and --margin to judge as it ran)";
  }
  return s;
}

// Adaptive sampling in `culprit run` stopped at whichever look decided, so only alpha over all
// its planned looks (Bonferroni) bounds the overall error, however few looks were taken. A
// fixed sweep made one look; bisect and verdict add theirs: the looks the runs show decide
// (stored_looks.hpp says why).
void split_over_looks(const StoredExperiment& experiment, const StoredSettings& stored,
                      JudgingSettings& judging) {
  const LookAlpha look =
      stored.adaptive
          ? alpha_over_planned_looks(stored.repetitions, stored.max_repetitions, judging.alpha)
          : alpha_per_look(experiment, stored.repetitions, stored.max_repetitions, judging.alpha);
  judging.looks = look.looks;
  judging.looks_planned = stored.adaptive;
  judging.alpha_per_comparison = look.alpha;
}

}  // namespace

JudgingSettings stored_judging_settings(storage::Db& store, const StoredExperiment& experiment) {
  StoredSettings stored = read_settings(store, experiment);
  split_over_looks(experiment, stored, stored.judging);
  return stored.judging;
}

Judgement judge_experiment(storage::Db& store, const StoredExperiment& experiment,
                           const JudgeRequest& request) {
  StoredSettings stored = read_settings(store, experiment);
  if (request.alpha || request.margin) stored.judging.source += ", overridden on the command line";
  if (request.alpha) stored.judging.alpha = *request.alpha;
  if (request.margin) stored.judging.margin = *request.margin;
  Judgement judgement;
  split_over_looks(experiment, stored, stored.judging);
  judgement.settings = stored.judging;
  ComparisonRequest comparison;
  comparison.baseline_label = request.baseline_label;
  comparison.candidate_label = request.candidate_label;
  comparison.options.alpha = judgement.settings.alpha_per_comparison;
  comparison.options.margin = judgement.settings.margin;
  judgement.comparisons = compare_stored(experiment, comparison);
  return judgement;
}

}  // namespace culprit::stats
