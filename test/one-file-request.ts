import {
  type ApprovalFile,
  type ApprovalQuestion,
  type ApprovalRequest,
  withFirstFileAliases,
} from '../src/gate/approval.js';

/** A request about one file, written as the file's fields beside the tool (as the gate asks it). */
export function oneFileRequest({
  tool,
  question,
  input,
  ...file
}: Omit<ApprovalQuestion, 'files'> & ApprovalFile): ApprovalRequest {
  return withFirstFileAliases({
    tool,
    files: [file],
    ...(question !== undefined && { question }),
    ...(input !== undefined && { input }),
  });
}
