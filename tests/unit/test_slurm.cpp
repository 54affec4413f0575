#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "culprit/common/text.hpp"
#include "culprit/errors.hpp"
#include "culprit/launch/process.hpp"
#include "culprit/report/sweep_report.hpp"
#include "culprit/slurm/client.hpp"
#include "culprit/slurm/sweep.hpp"

using culprit::shell_quote;
using culprit::slurm::parse_scontrol_records;

TEST_CASE("scontrol records: Key=Value words, records split by blank lines") {
  const auto records = parse_scontrol_records(R"(JobId=7 ArrayJobId=5 ArrayTaskId=2 JobName=x
   JobState=CANCELLED Reason=None Dependency=(null)
   ExitCode=0:15
   Command=/tmp/a b/shards.sbatch

JobId=8 ArrayJobId=5 ArrayTaskId=3
   JobState=COMPLETED ExitCode=0:0
)");
  REQUIRE(records.size() == 2);
  CHECK(records[0].at("JobId") == "7");
  CHECK(records[0].at("ArrayTaskId") == "2");
  CHECK(records[0].at("JobState") == "CANCELLED");
  CHECK(records[0].at("ExitCode") == "0:15");
  CHECK(records[0].at("Command") == "/tmp/a b/shards.sbatch");  // a value with a space
  CHECK(records[1].at("JobState") == "COMPLETED");
  // A jobcomp/filetxt line is one record.
  const auto line = parse_scontrol_records(
      "JobId=3 UserId=root(0) Name=wrap JobState=FAILED ArrayJobId=1 ArrayTaskId=2 ExitCode=3:0");
  REQUIRE(line.size() == 1);
  CHECK(line[0].at("ExitCode") == "3:0");
}

TEST_CASE("final states are the ones after which a job never runs again") {
  using culprit::slurm::is_final_state;
  for (const char* s : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL"}) {
    CHECK(is_final_state(s));
  }
  for (const char* s : {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED"}) {
    CHECK_FALSE(is_final_state(s));
  }
}

TEST_CASE("shell_quote: any word survives bash unchanged") {
  CHECK(shell_quote("plain") == "'plain'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  // Round trip through a real bash (argv, no shell of ours): printf prints the word back.
  for (const std::string& word :
       {std::string("a b"), std::string("it's $HOME `x` \"q\" \\ *"), std::string("")}) {
    culprit::launch::ProcessSpec spec;
    spec.argv = {"bash", "-c", "printf %s " + shell_quote(word)};
    const auto result = culprit::launch::run_process(spec);
    REQUIRE(result.exit_code == 0);
    CHECK(result.stdout_tail == word);
  }
}

TEST_CASE("load_submission: a database without a submitted sweep is a usage error") {
  CHECK_THROWS_WITH_AS(culprit::slurm::load_submission("/nonexistent/x.db"),
                       doctest::Contains("submit it first"), culprit::UsageError);
}

TEST_CASE("squeue lines: states, reasons, a pending array's tasks expanded") {
  const auto states = culprit::slurm::parse_squeue(
      "12_1|RUNNING|None\n12_[2-4,7%2]|PENDING|JobArrayTaskLimit\n13|PENDING|Dependency\n");
  REQUIRE(states.size() == 6);
  CHECK(states[0].job_id == "12_1");
  CHECK(states[0].state == "RUNNING");
  CHECK(states[0].reason.empty());
  CHECK(states[1].job_id == "12_2");
  CHECK(states[3].job_id == "12_4");
  CHECK(states[4].job_id == "12_7");
  CHECK(states[4].reason == "JobArrayTaskLimit");
  CHECK(states[5].job_id == "13");
  CHECK(states[5].source == "squeue");
}

TEST_CASE("jobcomp log: an array's tasks by their array id, the last line of a job wins") {
  const std::string log =
      "JobId=3 UserId=root(0) Name=w JobState=FAILED ArrayJobId=1 ArrayTaskId=2 ExitCode=3:0\n"
      "JobId=2 UserId=root(0) Name=w JobState=COMPLETED ArrayJobId=1 ArrayTaskId=1 "
      "ExitCode=0:0\n"
      "JobId=9 UserId=root(0) Name=other JobState=TIMEOUT ExitCode=0:1\n"
      "JobId=3 UserId=root(0) Name=w JobState=COMPLETED ArrayJobId=1 ArrayTaskId=2 "
      "ExitCode=0:0\n";
  const auto states = culprit::slurm::parse_jobcomp(log, "1");
  REQUIRE(states.size() == 2);
  CHECK(states[0].job_id == "1_1");
  CHECK(states[1].job_id == "1_2");
  CHECK(states[1].state == "COMPLETED");  // requeued after failing once
  CHECK(states[1].source == "jobcomp");
  const auto plain = culprit::slurm::parse_jobcomp(log, "9");
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].state == "TIMEOUT");
}

TEST_CASE("sweep report: progress line with ETA, status text naming what to do") {
  culprit::slurm::Submission sub;
  sub.db = "/w/s.db";
  sub.dir = "/w/s.db.slurm";
  sub.shards = 2;
  culprit::slurm::SweepStatus s;
  s.planned = 8;
  s.finished = 2;
  s.ok = 2;
  s.pending_tasks = 1;
  s.running_tasks = 1;
  s.merge_job = "13";
  s.merge_state = "PENDING";
  s.merge_log = "/w/s.db.slurm/logs/merge.out";
  // 2 runs in 10 s: 6 left take 30 s.
  CHECK(culprit::report::sweep_progress_line(s, 10) ==
        "tasks: 1 pending, 1 running, 0 done, 0 failed | runs 2/8 done (2 ok) | merge PENDING | "
        "elapsed 10s ETA 30s");
  s.finished = 0;
  CHECK(culprit::report::sweep_progress_line(s, 3).ends_with("ETA ?"));

  culprit::slurm::ShardStatus a;
  a.shard = 1;
  a.job_id = "12_1";
  a.state = "COMPLETED";
  a.planned = 4;
  a.ok = 4;
  a.log = "/w/s.db.slurm/logs/shard-1.out";
  culprit::slurm::ShardStatus b = a;
  b.shard = 2;
  b.job_id = "12_2";
  b.state = "TIMEOUT";
  b.ok = 1;
  b.log = "/w/s.db.slurm/logs/shard-2.out";
  s.shards = {a, b};
  s.merge_state = "COMPLETED";
  s.merged_ok = 5;
  const std::string text = culprit::report::sweep_status_text(s, sub);
  CHECK(text.find("shard 1/2  job 12_1  COMPLETED  runs 4/4 ok\n") != std::string::npos);
  CHECK(
      text.find("shard 2/2  job 12_2  TIMEOUT  runs 1/4 ok  log /w/s.db.slurm/logs/shard-2.out") !=
      std::string::npos);
  CHECK(text.find("5 of 8 planned run(s) ok in /w/s.db; complete it with --resume") !=
        std::string::npos);
  const std::string json = culprit::report::sweep_status_json(s, sub);
  CHECK(json.find(R"("state":"TIMEOUT")") != std::string::npos);
  CHECK(json.find(R"("over":true)") != std::string::npos);
}
