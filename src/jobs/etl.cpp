#include "jobs/etl.hpp"

namespace predlake::jobs {

std::string EtlCommand(EtlJob job) {
  switch (job) {
    case EtlJob::kUpdate:
      return "etl update";
    case EtlJob::kRebuild:
      return "etl rebuild";
    case EtlJob::kDrop:
      return "etl drop";
    case EtlJob::kRawDrop:
      return "raw drop";
  }
  return "etl";
}

Result<etl::RunReport> RunEtl(const WriterEnv& env, const EtlRequest& request) {
  const etl::UpdateOptions& options = request.options;
  WriterEnv existing = env;
  existing.create = false;
  auto report =
      RunWriter<etl::RunReport>(existing, EtlCommand(request.job),
                                [&](lake::Lake& lake, lake::Run& run) -> Result<etl::RunReport> {
                                  switch (request.job) {
                                    case EtlJob::kUpdate:
                                      return etl::Update(lake, run, options);
                                    case EtlJob::kRebuild:
                                      return etl::Rebuild(lake, run, options);
                                    case EtlJob::kDrop:
                                      return etl::Drop(lake, run, request.from_ms, options);
                                    case EtlJob::kRawDrop:
                                      return etl::RawDrop(lake, run, request.from_ms, options);
                                  }
                                  return Status::Internal("unknown ETL job");
                                });
  if (options.progress != nullptr) options.progress->Finish();
  return report;
}

}  // namespace predlake::jobs
