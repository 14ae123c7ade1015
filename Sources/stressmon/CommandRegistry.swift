import ArgumentParser

/// Every subcommand, in the order `stressmon --help` lists them. One line per command keeps merges simple.
enum CommandRegistry {
  static let all: [any ParsableCommand.Type] = [
    RunCommand.self,
    ScoreCommand.self,
    AnalyzeCommand.self,
    RecordCommand.self,
    DoctorCommand.self,
    RenderCommand.self,
    ReportCommand.self,
    SyncCommand.self,
    HistoryCommand.self,
    ExportCommand.self,
    BaselineCommand.self,
  ]
}
